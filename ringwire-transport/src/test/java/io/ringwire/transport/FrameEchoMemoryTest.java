package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk stream of small frames echoed through Netty's frame decoder (each frame a retained slice of the decoder's
 * cumulation, written in channelRead and flushed in channelReadComplete, as the lab's rpc and single-stream servers
 * do) keeps the server's memory bounded. The decoder can discard the bytes it has read only while no slice of its
 * cumulation is held, which with asynchronous sends is never; if its next bytes are appended in place (the echo's
 * SEND reaped before the next receive), the cumulation grows with the whole stream and is copied at each growth. The
 * receive order Ringwire keeps for a socket with more waiting (the next RECV before the SEND) prevents that: this
 * test failed (the cumulation grew to the whole 64 MiB stream) when the SEND went first, and (with 1,500-byte frames,
 * which never leave the cumulation empty at the end of a 64 KiB receive) to 40 MiB when large flushes were written
 * at once with sendmsg(2), releasing the frames before the next receive.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrameEchoMemoryTest {
    /** About 64 MiB: each case echoes the whole number of its frames that fits. */
    private static final long STREAM = 64L * 1024 * 1024;
    private static final long BOUND = 4L * 1024 * 1024; // a cumulation holds a partial frame and one receive

    private static byte expected(long position) {
        return (byte) (position * 131 + (position >>> 13));
    }

    /** Byte {@code position} of the stream: frames of {@code frame} bytes, each a 4-byte length and its payload. */
    private static byte streamByte(long position, int frame) {
        int inFrame = (int) (position % frame);
        if (inFrame < 4) {
            return (byte) ((frame - 4) >>> (8 * (3 - inFrame)));
        }
        return expected(position);
    }

    /** The frame decoder, recording the largest its cumulation (the buffer it decodes from) has been. */
    private static final class MeasuredDecoder extends LengthFieldBasedFrameDecoder {
        final AtomicLong peakCumulation;

        MeasuredDecoder(AtomicLong peakCumulation) {
            super(1 << 20, 0, 4);
            this.peakCumulation = peakCumulation;
        }

        @Override
        protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
            if (in.capacity() > peakCumulation.get()) {
                peakCumulation.set(in.capacity());
            }
            return super.decode(ctx, in);
        }
    }

    /**
     * @param frame bytes per frame, its 4-byte length included: 1,024 divides the 64 KiB receives (the cumulation is
     *              often empty at the end of one), 1,500 does not (it always holds a partial frame)
     */
    @ParameterizedTest(name = "{0}-byte frames")
    @ValueSource(ints = {1024, 1500})
    void echoingFramesOfABulkStreamKeepsTheDecoderBounded(int frame) throws Exception {
        echo(frame, false);
    }

    /**
     * The same with socket buffers large enough that a bulk stream's echo is taken whole by the sendmsg(2) made when
     * its read loop ends ({@link RingwireCounters#inlineWrites()}), which releases the frames before the next receive.
     */
    @ParameterizedTest(name = "{0}-byte frames, echoes written at once")
    @ValueSource(ints = {1024, 1500})
    void echoesWrittenAtOnceKeepTheDecoderBounded(int frame) throws Exception {
        echo(frame, true);
    }

    /**
     * A peer as fast as the lab's generator (every frame the same, the echo checked with a CRC instead of byte by
     * byte), so that the inline writes are taken whole and the frames leave before the next receive: the decoder's
     * cumulation must stay bounded (in the lab's single-stream it grew to 240-330 MiB before the last frame sent was
     * held until that receive; this peer has not made it grow either way).
     */
    @ParameterizedTest(name = "{0}-byte frames, a fast peer")
    @ValueSource(ints = {1028, 1500})
    void aFastPeersEchoesWrittenAtOnceKeepTheDecoderBounded(int frame) throws Exception {
        byte[] chunk = new byte[frame * 256];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = streamByte(i % frame, frame);
        }
        long chunks = STREAM / chunk.length;
        java.util.zip.CRC32 sent = new java.util.zip.CRC32();
        for (long c = 0; c < chunks; c++) {
            sent.update(chunk);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        AtomicLong peakCumulation = new AtomicLong();
        try {
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new MeasuredDecoder(peakCumulation), new TrackingEcho(1));
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                java.util.zip.CRC32 received = new java.util.zip.CRC32();
                AtomicLong echoed = new AtomicLong();
                Thread reader = Thread.ofPlatform().start(() -> {
                    try (InputStream in = peer.getInputStream()) {
                        byte[] buf = new byte[256 * 1024];
                        long pos = 0;
                        int n;
                        while (pos < chunks * chunk.length && (n = in.read(buf)) > 0) {
                            received.update(buf, 0, n);
                            pos += n;
                        }
                        echoed.set(pos);
                    } catch (Exception e) {
                        echoed.set(-1);
                    }
                });
                try (OutputStream out = peer.getOutputStream()) {
                    for (long c = 0; c < chunks; c++) {
                        out.write(chunk);
                    }
                    out.flush();
                    reader.join(TimeUnit.SECONDS.toMillis(90));
                }
                assertEquals(chunks * chunk.length, echoed.get(), "every byte came back");
                assertEquals(sent.getValue(), received.getValue(), "unchanged");
                RingwireCounters counters = RingwireCounters.of(server.eventLoop());
                long inline = server.eventLoop().submit(counters::inlineWrites).get();
                assertTrue(inline > 0, counters::toString);
                assertTrue(peakCumulation.get() < BOUND, () -> "the decoder's cumulation stayed under " + BOUND
                    + " bytes: it reached " + peakCumulation.get());
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private void echo(int frame, boolean largeSocketBuffers) throws Exception {
        long stream = STREAM / frame * frame;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        AtomicLong peakCumulation = new AtomicLong();
        TrackingEcho echo = new TrackingEcho(1);
        try {
            ServerBootstrap b = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class);
            if (largeSocketBuffers) {
                b.childOption(io.netty.channel.ChannelOption.SO_SNDBUF, 4 << 20);
            }
            Channel server = b
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // the echo writes each frame and flushes in channelReadComplete
                        ch.pipeline().addLast(new MeasuredDecoder(peakCumulation), echo);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            try (Socket peer = new Socket()) {
                if (largeSocketBuffers) {
                    peer.setReceiveBufferSize(4 << 20);
                }
                peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    ((InetSocketAddress) server.localAddress()).getPort()));
                AtomicLong mismatches = new AtomicLong();
                AtomicLong echoed = new AtomicLong();
                Thread reader = Thread.ofPlatform().start(() -> {
                    try (InputStream in = peer.getInputStream()) {
                        byte[] buf = new byte[256 * 1024];
                        long pos = 0;
                        int n;
                        while (pos < stream && (n = in.read(buf)) > 0) {
                            for (int i = 0; i < n; i++, pos++) {
                                if (buf[i] != streamByte(pos, frame)) {
                                    mismatches.incrementAndGet();
                                }
                            }
                            echoed.set(pos);
                        }
                    } catch (Exception e) {
                        mismatches.incrementAndGet();
                    }
                });
                try (OutputStream out = peer.getOutputStream()) {
                    byte[] chunk = new byte[256 * 1024];
                    for (long pos = 0; pos < stream; pos += chunk.length) {
                        int n = (int) Math.min(chunk.length, stream - pos);
                        for (int i = 0; i < n; i++) {
                            chunk[i] = streamByte(pos + i, frame);
                        }
                        out.write(chunk, 0, n);
                    }
                    out.flush();
                    reader.join(TimeUnit.SECONDS.toMillis(90));
                }
                assertEquals(stream, echoed.get(), "every byte came back");
                assertEquals(0, mismatches.get(), "in order, unchanged");
                if (largeSocketBuffers) {
                    RingwireCounters counters = RingwireCounters.of(server.eventLoop());
                    long inline = server.eventLoop().submit(counters::inlineWrites).get();
                    assertTrue(inline > 0, counters::toString);
                }
                assertTrue(peakCumulation.get() < BOUND, () -> "the decoder's cumulation stayed under " + BOUND
                    + " bytes while echoing a " + stream + "-byte stream: it reached " + peakCumulation.get());
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
