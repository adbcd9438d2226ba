package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk stream switches to direct receives (straight into allocator buffers) and back to the shared ring when it
 * slows down, and no byte is lost, repeated or reordered on the way; with the switch off, only the ring is used; and
 * its read loop hands at most {@link AbstractRingwireStreamChannel#READ_LOOP_BYTES} up the pipeline before
 * channelReadComplete. The sender is a plain JDK socket, so only Ringwire's receive path is under test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BulkReceiveTest {
    private static final int BULK_BYTES = 16 * 1024 * 1024;
    private static final int SMALL_MESSAGES = 50;
    private static final int SMALL_SIZE = 100;

    private static byte expected(long position) {
        return (byte) (position * 31 + (position >>> 11));
    }

    /** Checks every byte against its position in the stream; acks each small message of the second phase. */
    private static final class Checker extends ChannelInboundHandlerAdapter {
        final AtomicLong received = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final CountDownLatch bulkDone = new CountDownLatch(1);

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                long pos = received.get();
                // one bulk copy per read: the leak detector (PARANOID here) records every access of the buffer
                byte[] bytes = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), bytes);
                for (int i = 0; i < bytes.length; i++, pos++) {
                    if (bytes[i] != expected(pos)) {
                        mismatches.incrementAndGet();
                    }
                }
                long before = received.getAndSet(pos);
                if (before < BULK_BYTES && pos >= BULK_BYTES) {
                    bulkDone.countDown();
                }
                // second phase: one ack byte per whole small message
                long acks = Math.max(0, (pos - BULK_BYTES) / SMALL_SIZE) - Math.max(0, (before - BULK_BYTES)
                    / SMALL_SIZE);
                if (acks > 0) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[(int) acks]));
                }
            } finally {
                b.release();
            }
        }
    }

    @ParameterizedTest(name = "directReceive={0}")
    @ValueSource(booleans = {true, false})
    void bulkThenSmallMessagesArriveWholeAndInOrder(boolean directReceive) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            // every ring buffer from the start: this is about the bulk mode's switch, not the ring's growth (a ring
            // that starts small doubles each time it runs dry, and the receive that found it empty is armed on it
            // again: RingGrowthTest)
            RingwireIoHandlerConfig.builder().directReceive(directReceive).initialBufferRingEntries(1024).build()));
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Checker checker = new Checker();
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class).handler(checker)
                .connect(server.getLocalSocketAddress()).sync().channel();
            RingwireCounters counters = RingwireCounters.of(ch.eventLoop());
            try (Socket peer = server.accept(); OutputStream out = peer.getOutputStream();
                 InputStream acks = peer.getInputStream()) {
                byte[] chunk = new byte[256 * 1024];
                long pos = 0;
                while (pos < BULK_BYTES) {
                    for (int i = 0; i < chunk.length; i++) {
                        chunk[i] = expected(pos + i);
                    }
                    out.write(chunk);
                    pos += chunk.length;
                }
                out.flush();
                assertTrue(checker.bulkDone.await(30, TimeUnit.SECONDS), "the bulk phase arrived");
                // the loop's counters are read on the loop: they are its plain fields
                long directAfterBulk = ch.eventLoop().submit(counters::directRecvs).get();
                long recvsAfterBulk = ch.eventLoop().submit(counters::recvs).get();
                // second phase: one small message at a time, each sent after the previous one's ack
                byte[] small = new byte[SMALL_SIZE];
                for (int m = 0; m < SMALL_MESSAGES; m++) {
                    for (int i = 0; i < SMALL_SIZE; i++) {
                        small[i] = expected(pos + i);
                    }
                    out.write(small);
                    out.flush();
                    pos += SMALL_SIZE;
                    assertEquals(0, acks.read(), "ack of small message " + m);
                }
                assertEquals(pos, checker.received.get(), "every byte arrived");
                assertEquals(0, checker.mismatches.get(), "no byte lost, repeated or reordered");
                long recvs = ch.eventLoop().submit(counters::recvs).get();
                long directRecvs = ch.eventLoop().submit(counters::directRecvs).get();
                assertTrue(recvs - recvsAfterBulk >= SMALL_MESSAGES, counters::toString);
                if (directReceive) {
                    assertTrue(directAfterBulk > 0, () -> "the bulk stream went direct: " + counters);
                    // at most four small reads in a row stay direct (and one may be armed when the mode ends)
                    assertTrue(directRecvs - directAfterBulk <= 5,
                        () -> "small messages went back to the shared ring: " + counters);
                } else {
                    assertEquals(0, directRecvs, counters::toString);
                }
            } finally {
                ch.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** Records the bytes of direct receives between two channelReadComplete calls, and the most there have been. */
    private static final class ReadLoopMeter extends ChannelInboundHandlerAdapter {
        final AtomicLong received = new AtomicLong();
        final AtomicLong mostBetweenReadCompletes = new AtomicLong();
        final AtomicLong readCompletes = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);
        private long sinceReadComplete;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            int n = b.readableBytes();
            b.release();
            if (n > RING_BUFFER_SIZE) { // more than a ring buffer holds: a direct receive
                sinceReadComplete += n;
                mostBetweenReadCompletes.accumulateAndGet(sinceReadComplete, Math::max);
            }
            if (received.addAndGet(n) >= LOOP_STREAM_BYTES) {
                done.countDown();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            sinceReadComplete = 0;
            readCompletes.incrementAndGet();
        }
    }

    private static final int LOOP_STREAM_BYTES = 64 * 1024 * 1024;
    private static final int RING_BUFFER_SIZE = 8 * 1024;
    /** The allocator's largest read (AdaptiveRecvByteBufAllocator's maximum). */
    private static final int LARGEST_READ = 64 * 1024;

    @Test
    void aBulkReadLoopStopsForChannelReadCompleteAfterItsBudget() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().initialBufferRingEntries(1024).build()));
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            ReadLoopMeter meter = new ReadLoopMeter();
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class).handler(meter)
                .connect(server.getLocalSocketAddress()).sync().channel();
            RingwireCounters counters = RingwireCounters.of(ch.eventLoop());
            try (Socket peer = server.accept(); OutputStream out = peer.getOutputStream()) {
                byte[] chunk = new byte[1024 * 1024]; // as fast as the sender can: more is mostly waiting
                for (long pos = 0; pos < LOOP_STREAM_BYTES; pos += chunk.length) {
                    out.write(chunk);
                }
                out.flush();
                assertTrue(meter.done.await(30, TimeUnit.SECONDS), "the stream arrived");
                long directRecvs = ch.eventLoop().submit(counters::directRecvs).get();
                assertTrue(directRecvs > 0, () -> "the stream went direct: " + counters);
                // the loop goes on while it has handed up less than its budget: the last receive may cross it
                long most = meter.mostBetweenReadCompletes.get();
                assertTrue(most <= AbstractRingwireStreamChannel.READ_LOOP_BYTES + LARGEST_READ,
                    () -> most + " B of direct receives before one channelReadComplete; "
                        + meter.readCompletes.get() + " of them, " + counters);
            } finally {
                ch.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
