package io.ringwire.lab;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
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
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.ringwire.examples.QuicEchoServer;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The quic workload's load generator: {@code conns} QUIC connections (Netty's QUIC codec, quiche) from one UDP socket
 * on one event loop (Netty epoll sending with GSO; NIO where epoll is missing; no GRO: with the 64 KiB receive
 * buffers GRO needs, Netty epoll's QUIC client did not complete a handshake here, not investigated),
 * each with one bidirectional stream carrying {@code depth} messages of {@code size} bytes in flight (closed loop).
 * A message is its sequence number, its send time and bytes that follow from the sequence number; the echo is
 * reassembled from the stream and checked byte for byte.
 */
final class QuicLoadGenerator {
    static final int HEADER = 16;

    private final InetSocketAddress server;
    private final int conns;
    private final int size;
    private final int depth;

    private final Histogram latency = new Histogram(60_000_000_000L, 3);
    private MeasuredWindow window;
    private long messages;
    private long sent;
    private long mismatches;
    private long errors;

    QuicLoadGenerator(InetSocketAddress server, int conns, int size, int depth) {
        if (conns < 1 || depth < 1 || size < HEADER || (long) size * depth > QuicEchoServer.WINDOW / 2) {
            throw new IllegalArgumentException("need conns ≥ 1, depth ≥ 1, size ≥ " + HEADER + " and size × depth "
                + "within half the server's stream window (" + QuicEchoServer.WINDOW / 2 + " B): " + conns + ", "
                + size + ", " + depth);
        }
        this.server = server;
        this.conns = conns;
        this.size = size;
        this.depth = depth;
    }

    /**
     * @param warmupOver says when the warm-up is over
     * @param seconds    the measured window
     * @param onWindow   called when the window opens and when it closes
     * @return what the window saw
     * @throws IOException          if a connection cannot be made
     * @throws InterruptedException if interrupted
     */
    LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow)
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
            List<Stream> streams = new ArrayList<>();
            for (int i = 0; i < conns; i++) {
                QuicChannel quic = QuicChannel.newBootstrap(udp)
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR,
                        epoll ? io.netty.channel.unix.SegmentedDatagramPacket::new
                            : io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator.NONE)
                    .handler(new ChannelInboundHandlerAdapter())
                    .remoteAddress(server).connect().get(30, TimeUnit.SECONDS);
                quics.add(quic);
                Stream s = new Stream();
                quic.createStream(QuicStreamType.BIDIRECTIONAL, s).sync();
                streams.add(s);
            }
            CompletableFuture<LoadGenerator.Result> done = new CompletableFuture<>();
            udp.eventLoop().execute(() -> {
                window = new MeasuredWindow(warmupOver, seconds, onWindow, () -> {
                    latency.reset();
                    messages = 0;
                    sent = 0;
                    mismatches = 0;
                    errors = 0;
                });
                long now = System.nanoTime();
                for (Stream s : streams) {
                    s.fill(now);
                }
            });
            var tick = udp.eventLoop().scheduleAtFixedRate(() -> {
                if (!done.isDone() && window != null && window.tick(System.nanoTime())) {
                    done.complete(window.close(messages, sent, latency, mismatches, errors));
                }
            }, 10, 10, TimeUnit.MILLISECONDS);
            try {
                return done.get();
            } finally {
                tick.cancel(false);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("QUIC connection to " + server + " failed", e.getCause() != null ? e.getCause() : e);
        } finally {
            for (QuicChannel q : quics) {
                q.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }

    /** One connection's stream: sends messages, reassembles and checks their echoes. */
    private final class Stream extends ChannelInboundHandlerAdapter {
        private QuicStreamChannel ch;
        private ByteBuf pending;
        private long nextSeq;
        private long expectSeq;
        private int outstanding;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ch = (QuicStreamChannel) ctx.channel();
            pending = ctx.alloc().buffer(size * 2);
        }

        void fill(long now) {
            if (outstanding >= depth) {
                return;
            }
            while (outstanding < depth) {
                ByteBuf m = ch.alloc().directBuffer(size);
                long seq = nextSeq++;
                m.writeLong(seq).writeLong(now);
                for (int i = HEADER; i < size; i++) {
                    m.writeByte((byte) (seq + i));
                }
                ch.write(m);
                sent++;
                outstanding++;
            }
            ch.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (pending == null || window == null) {
                in.release();
                return;
            }
            pending.writeBytes(in);
            in.release();
            long now = System.nanoTime();
            while (pending.readableBytes() >= size) {
                int at = pending.readerIndex();
                long seq = pending.getLong(at);
                long sentAt = pending.getLong(at + 8);
                if (seq != expectSeq) {
                    mismatches++;
                }
                expectSeq = seq + 1;
                for (int i = HEADER; i < size; i++) {
                    if (pending.getByte(at + i) != (byte) (seq + i)) {
                        mismatches++;
                    }
                }
                pending.skipBytes(size);
                outstanding--;
                messages++; // always, so that the window's opening (which resets them) changes no branch
                latency.recordValue(Math.max(0, now - sentAt));
            }
            pending.discardReadBytes();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            fill(System.nanoTime());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors++;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (pending != null) {
                pending.release();
                pending = null;
            }
        }
    }
}
