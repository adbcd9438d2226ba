package io.ringwire.lab.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.ringwire.examples.QuicEchoServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The quic workload's load generator: {@code conns} QUIC connections (Netty's QUIC codec, quiche) from one UDP socket
 * on one event loop (Netty epoll sending with GSO; NIO where epoll is missing; no GRO: with the 64 KiB receive
 * buffers GRO needs, Netty epoll's QUIC client did not complete a handshake here, not investigated),
 * each with one bidirectional stream carrying {@code depth} messages of {@code size} bytes in flight, checked as
 * {@link CheckedEcho} checks them.
 */
public final class QuicLoadGenerator implements Generator {
    private final InetSocketAddress server;
    private final int conns;
    private final CheckedEcho echo;

    public QuicLoadGenerator(InetSocketAddress server, int conns, int size, int depth) {
        this.echo = new CheckedEcho(size, depth); // checks size and depth
        if (conns < 1 || (long) size * depth > QuicEchoServer.WINDOW / 2) {
            throw new IllegalArgumentException("need conns ≥ 1 and size × depth within half the server's stream "
                + "window (" + QuicEchoServer.WINDOW / 2 + " B): " + conns + ", " + size + ", " + depth);
        }
        this.server = server;
        this.conns = conns;
    }

    /**
     * @param warmupOver says when the warm-up is over
     * @param seconds    the measured window
     * @param onWindow   called when the window opens and when it closes
     * @return what the window saw
     * @throws IOException          if a connection cannot be made
     * @throws InterruptedException if interrupted
     */
    @Override
    public LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow)
        throws IOException, InterruptedException {
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        List<QuicChannel> quics = new ArrayList<>();
        try {
            ChannelHandler codec = new QuicClientCodecBuilder()
                .sslContext(QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .applicationProtocols(QuicEchoServer.PROTOCOL).build())
                .maxIdleTimeout(60, TimeUnit.SECONDS)
                .initialMaxData(QuicEchoServer.WINDOW).initialMaxStreamDataBidirectionalLocal(QuicEchoServer.WINDOW)
                .initialMaxStreamDataBidirectionalRemote(QuicEchoServer.WINDOW)
                .build();
            Bootstrap b = new Bootstrap().group(group)
                .channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                .handler(codec);
            Channel udp = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            for (int i = 0; i < conns; i++) {
                QuicChannel quic = QuicChannel.newBootstrap(udp)
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR,
                        epoll ? io.netty.channel.unix.SegmentedDatagramPacket::new
                            : io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator.NONE)
                    .handler(new ChannelInboundHandlerAdapter())
                    .remoteAddress(server).connect().get(30, TimeUnit.SECONDS);
                quics.add(quic);
                quic.createStream(QuicStreamType.BIDIRECTIONAL, echo.newPeer()).sync();
            }
            return echo.run(udp.eventLoop(), warmupOver, seconds, onWindow);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("QUIC connection to " + server + " failed", e.getCause() != null ? e.getCause() : e);
        } finally {
            for (QuicChannel q : quics) {
                q.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }
}
