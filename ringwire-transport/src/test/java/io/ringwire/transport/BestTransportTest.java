package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Ringwire#bestTransport()} and each of its choices in this JVM: Ringwire here (this machine has io_uring),
 * and, given the causes that rule Ringwire and epoll out, epoll's or NIO's factory and channel classes, each carrying
 * an echo on loopback. The choice under a real seccomp filter is {@code fallback.FallbackUnderSeccompTest}'s.
 */
class BestTransportTest {
    @Test
    void choosesRingwireWhereItIsAvailableAndKeepsTheChoice() {
        BestTransport best = Ringwire.bestTransport();
        assertEquals(BestTransport.Kind.RINGWIRE, best.kind(), best::toString);
        assertTrue(best.isRingwire());
        assertNull(best.ringwireUnavailabilityCause());
        assertSame(best, Ringwire.bestTransport());
        assertEquals(RingwireServerSocketChannel.class, best.serverSocketChannelClass());
        assertEquals(RingwireDomainDatagramChannel.class, best.domainDatagramChannelClass());
    }

    @Test
    void epollIsFoundWhenItIsOnTheClassPath() {
        assertNull(BestTransport.EpollPresence.cause(), "netty-transport-native-epoll is a test dependency");
    }

    @Test
    void epollWhenRingwireIsUnavailable() throws Exception {
        Throwable cause = new UnsupportedOperationException("io_uring is unavailable on this kernel: EPERM");
        BestTransport t = BestTransport.choose(cause, null);
        assertEquals(BestTransport.Kind.EPOLL, t.kind());
        assertFalse(t.isRingwire());
        assertSame(cause, t.ringwireUnavailabilityCause());
        assertTrue(t.reason().contains("EPERM") && t.reason().contains("epoll"), t.reason());
        assertEquals(EpollSocketChannel.class, t.socketChannelClass());
        assertEquals(EpollServerSocketChannel.class, t.serverSocketChannelClass());
        assertEquals(EpollDomainSocketChannel.class, t.domainSocketChannelClass());
        assertTrue(t.supportsDomainSockets());
        assertEquals("hello", echo(t));
    }

    @Test
    void nioWhenNeitherRingwireNorEpollCanRun() throws Exception {
        BestTransport t = BestTransport.choose(new UnsupportedOperationException("Ringwire is disabled"),
            new UnsupportedOperationException("netty-transport-native-epoll is not on the class path"));
        assertEquals(BestTransport.Kind.NIO, t.kind());
        assertTrue(t.reason().contains("Ringwire is disabled") && t.reason().contains("not on the class path"),
            t.reason());
        assertEquals(NioSocketChannel.class, t.socketChannelClass());
        assertEquals(NioServerSocketChannel.class, t.serverSocketChannelClass());
        assertEquals(NioDatagramChannel.class, t.datagramChannelClass());
        assertFalse(t.supportsDomainSockets());
        assertNull(t.domainSocketChannelClass());
        assertNull(t.serverDomainSocketChannelClass());
        assertNull(t.domainDatagramChannelClass());
        assertEquals("hello", echo(t));
    }

    @Test
    void ringwireChoiceCarriesAnEchoWithTheGivenConfiguration() throws Exception {
        assertEquals("hello", echo(BestTransport.choose(null, null)));
    }

    /** An echo server and a client of it on {@code t}'s loops and channels, on loopback. */
    private static String echo(BestTransport t) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            t.ioHandlerFactory(RingwireIoHandlerConfig.builder().build()));
        try {
            Channel server = new ServerBootstrap().group(group).channel(t.serverSocketChannelClass())
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            CompletableFuture<String> answer = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(t.socketChannelClass())
                .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                    private final StringBuilder got = new StringBuilder();

                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                        got.append(msg.toString(StandardCharsets.US_ASCII));
                        if (got.length() >= 5) {
                            answer.complete(got.toString());
                        }
                    }
                })
                .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();
            String got = answer.get(60, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            return got;
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
