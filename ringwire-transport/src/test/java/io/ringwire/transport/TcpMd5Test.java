package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TCP_MD5SIG (RFC 2385) on loopback: a listener with a key for 127.0.0.1 accepts a Ringwire client holding the same
 * key and never one without it or with another (the kernel drops their unsigned or wrongly signed SYNs: the attempt
 * can only time out); removing the keys lets an unsigned client in. Netty's {@code EpollChannelOption.TCP_MD5SIG} is
 * the same constant. Bad keys are refused before anything changes.
 */
class TcpMd5Test extends OneLoopTestBase {
    private static final InetAddress PEER = InetAddress.getLoopbackAddress();
    private static final byte[] KEY = "ringwire-bgp-secret".getBytes(StandardCharsets.US_ASCII);

    @Test
    void onlyAPeerWithTheKeyConnects() throws Exception {
        RingwireServerSocketChannel server = (RingwireServerSocketChannel) new ServerBootstrap().group(group)
            .channel(RingwireServerSocketChannel.class)
            .option(EpollChannelOption.TCP_MD5SIG, Map.of(PEER, KEY))
            .childHandler(new EchoOnce()).bind(new InetSocketAddress(PEER, 0)).sync().channel();
        try {
            int port = server.localAddress().getPort();
            assertEquals("signed", exchange(port, KEY), "the same key at both ends");
            // a dropped SYN never connects, however long one waits: a second's attempt says so on any machine
            assertFalse(unsignedConnects(port, 1_000), "an unsigned SYN is dropped");
            ChannelFuture wrong = client(port, "another-key".getBytes(StandardCharsets.US_ASCII), 1_000);
            assertFalse(wrong.await(10, TimeUnit.SECONDS) && wrong.isSuccess(), "a wrongly signed SYN is dropped");
            wrong.channel().close().sync();

            server.config().setOption(RingwireChannelOption.TCP_MD5SIG, Map.of());
            assertTrue(unsignedConnects(port, 10_000), "no key left: an unsigned client gets in");
            assertNull(server.config().getOption(RingwireChannelOption.TCP_MD5SIG), "keys are not read back");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void badKeysAreRefusedBeforeAnythingChanges() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            RingwireSocketChannelConfig c = ch.config();
            IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> c.setOption(RingwireChannelOption.TCP_MD5SIG, Map.of(PEER, new byte[81])));
            assertTrue(tooLong.getMessage().contains("81 bytes") && tooLong.getMessage().contains("127.0.0.1"),
                tooLong.getMessage());
            assertThrows(IllegalArgumentException.class,
                () -> c.setOption(RingwireChannelOption.TCP_MD5SIG, Map.of(PEER, new byte[0])));
            assertTrue(c.setOption(RingwireChannelOption.TCP_MD5SIG, Map.of(PEER, KEY)));
            assertTrue(c.setOption(RingwireChannelOption.TCP_MD5SIG, Map.of()), "removes the key set before");
            NativeIoException gone = assertThrows(NativeIoException.class, () -> ch.withFd(fd -> {
                Sockets.setTcpMd5Sig(fd, Sockets.isIpv6(fd), PEER, null); // (a direct descriptor: an fd for the call)
                return null;
            }));
            assertTrue(gone.getMessage().contains("ENOENT"), "removing it again finds none: " + gone.getMessage());
        } finally {
            ch.close().sync();
        }
    }

    /** @return what the server echoed to a Ringwire client signing with {@code key} */
    private static String exchange(int port, byte[] key) throws Exception {
        ChannelFuture f = client(port, key, 10_000);
        assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), "connected: " + f.cause());
        Channel ch = f.channel();
        try {
            ch.writeAndFlush(Unpooled.copiedBuffer("signed", StandardCharsets.US_ASCII)).sync();
            return ((Reply) ch.pipeline().last()).replies.poll(10, TimeUnit.SECONDS);
        } finally {
            ch.close().sync();
        }
    }

    private static ChannelFuture client(int port, byte[] key, int connectTimeoutMillis) {
        return new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .option(RingwireChannelOption.TCP_MD5SIG, Map.of(PEER, key))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .handler(new Reply()).connect(new InetSocketAddress(PEER, port));
    }

    /** An unsigned JDK socket: whether it connects within {@code timeoutMillis}. */
    private static boolean unsignedConnects(int port, int timeoutMillis) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(PEER, port), timeoutMillis);
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @io.netty.channel.ChannelHandler.Sharable
    private static final class EchoOnce extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            ctx.writeAndFlush(msg.retain());
        }
    }

    private static final class Reply extends SimpleChannelInboundHandler<ByteBuf> {
        final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            replies.add(msg.toString(StandardCharsets.US_ASCII));
        }
    }
}
