package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.PeerCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Unix domain sockets add to the stream channel (Netty's socket tests run over them too, in the testsuite
 * package): who the peer is, the socket file's life, abstract names, the JDK's address type, and clear refusals.
 */
class DomainSocketTest extends OneLoopTestBase {
    @TempDir
    Path dir;

    /** An echo server on {@code address}; returns its channel. */
    private Channel echoServer(java.net.SocketAddress address, CompletableFuture<PeerCredentials> childPeer) {
        return echoServer(address, childPeer, new CompletableFuture<>());
    }

    private Channel echoServer(java.net.SocketAddress address, CompletableFuture<PeerCredentials> childPeer,
                               CompletableFuture<Channel> child) {
        return new ServerBootstrap().group(group).channel(RingwireServerDomainSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) throws Exception {
                    child.complete(ctx.channel());
                    childPeer.complete(((RingwireDomainSocketChannel) ctx.channel()).peerCredentials());
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ctx.writeAndFlush(msg);
                }
            }).bind(address).syncUninterruptibly().channel();
    }

    /** Connects, sends {@code text}, and returns what came back. */
    private String roundTrip(java.net.SocketAddress address, String text) throws Exception {
        CompletableFuture<String> echoed = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
            .handler(new ChannelInitializer<Channel>() {
                private final StringBuilder got = new StringBuilder();

                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            got.append(b.toString(StandardCharsets.UTF_8));
                            b.release();
                            if (got.length() >= text.length()) {
                                echoed.complete(got.toString());
                            }
                        }
                    });
                }
            }).connect(address).syncUninterruptibly().channel();
        try {
            PeerCredentials server = ((RingwireDomainSocketChannel) client).peerCredentials();
            assertEquals(ProcessHandle.current().pid(), server.pid(), "the server is this process");
            client.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
            return echoed.get(10, TimeUnit.SECONDS);
        } finally {
            client.close().syncUninterruptibly();
        }
    }

    @Test
    void pathSocketEchoesNamesItsPeerAndDeletesItsFileOnClose() throws Exception {
        long fdsBefore = TrackingEcho.openFds();
        Path file = dir.resolve("echo.sock");
        CompletableFuture<PeerCredentials> childPeer = new CompletableFuture<>();
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = echoServer(new DomainSocketAddress(file.toFile()), childPeer, child);
        assertTrue(Files.exists(file), "bind made the socket file");
        assertEquals(file.toString(), ((RingwireServerDomainSocketChannel) server).localAddress().path());

        assertEquals("hello over a path", roundTrip(new DomainSocketAddress(file.toFile()), "hello over a path"));
        PeerCredentials client = childPeer.get(10, TimeUnit.SECONDS);
        assertEquals(ProcessHandle.current().pid(), client.pid(), "the client is this process");

        // the client has closed: the server's side sees the EOF and closes too
        assertTrue(child.get(10, TimeUnit.SECONDS).closeFuture().await(10, TimeUnit.SECONDS), "the child closed");
        server.close().syncUninterruptibly();
        assertFalse(Files.exists(file), "close deleted the socket file it had bound");
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "every descriptor was closed");
    }

    @Test
    void abstractNameLeavesNoFile() throws Exception {
        DomainSocketAddress name = new DomainSocketAddress("\0ringwire-domain-test-" + ProcessHandle.current().pid());
        Channel server = echoServer(name, new CompletableFuture<>());
        try {
            assertEquals(name.path(), ((RingwireServerDomainSocketChannel) server).localAddress().path(),
                "the abstract name reads back with its leading NUL");
            assertEquals("hello in the abstract", roundTrip(name, "hello in the abstract"));
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void jdkAddressesAreTakenToo() throws Exception {
        Path file = dir.resolve("jdk.sock");
        Channel server = echoServer(UnixDomainSocketAddress.of(file), new CompletableFuture<>());
        try {
            assertEquals("hello, JDK address", roundTrip(UnixDomainSocketAddress.of(file), "hello, JDK address"));
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void keepAliveIsTakenAsOnTcp() throws InterruptedException {
        // gRPC sets SO_KEEPALIVE on every channel; a domain socket takes it (and ignores it) instead of warning
        RingwireDomainSocketChannel ch = new RingwireDomainSocketChannel();
        group.register(ch).syncUninterruptibly();
        try {
            assertFalse(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
            assertTrue(ch.config().setOption(ChannelOption.SO_KEEPALIVE, true));
            assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
            assertTrue(ch.config().getOptions().containsKey(ChannelOption.SO_KEEPALIVE));
        } finally {
            ch.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void refusalsAreClear() throws InterruptedException {
        RingwireDomainSocketChannel ch = new RingwireDomainSocketChannel();
        group.register(ch).syncUninterruptibly();
        try {
            String tooLong = dir.resolve("x".repeat(120)).toString();
            Throwable bind = new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(new DomainSocketAddress(tooLong)).awaitUninterruptibly().cause();
            assertTrue(bind instanceof IllegalArgumentException && bind.getMessage().contains("1 to 107 bytes"),
                String.valueOf(bind));

            Throwable wrongType = new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(new java.net.InetSocketAddress("127.0.0.1", 1)).awaitUninterruptibly().cause();
            assertTrue(wrongType instanceof IllegalArgumentException
                && wrongType.getMessage().contains("DomainSocketAddress"), String.valueOf(wrongType));
        } finally {
            ch.close().await(10, TimeUnit.SECONDS);
        }
    }
}
