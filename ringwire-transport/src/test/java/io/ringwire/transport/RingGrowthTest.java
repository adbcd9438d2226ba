package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loop's receive ring starts with a few buffers and doubles when a burst finds it empty (a quiet loop
 * keeps a few pages resident, not every buffer): the receives that found it empty are armed on the grown ring again
 * (none falls back to a buffer of its own, which an idle connection would then hold until its next bytes), every byte
 * arrives intact and in order, and the ring grows no further than its entries.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingGrowthTest extends OneLoopTestBase {
    // each connection's 32 KiB is four ring buffers, all received by its multishot RECV in one go (the kernel retries
    // a multishot receive while the socket has data; a kernel that does not still runs all 100 receives at once), and
    // the kernel runs about 20 such receives per enter (6.13+): one enter needs more than the ring's first 64 buffers.
    // All of it is 400 buffers, so the ring (1,024 at most) never reaches its largest, where a receive that found it
    // empty would have to go to a buffer of its own
    private static final int CONNS = 100;
    private static final int BYTES = 32 * 1024;

    private static byte expected(int conn, int i) {
        return (byte) (conn * 7 + i * 13);
    }

    /** Checks each connection's bytes: the first byte names the connection, the rest follow the pattern. */
    @ChannelHandler.Sharable
    private static final class Checker extends ChannelInboundHandlerAdapter {
        final AtomicLong mismatches = new AtomicLong();
        final CountDownLatch active = new CountDownLatch(CONNS);
        final CountDownLatch done = new CountDownLatch(CONNS);

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.countDown(); // accepted, registered, its receive armed by the time the loop enters again
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                int[] state = ctx.channel().attr(STATE).setIfAbsent(new int[] {-1, 0});
                if (state == null) {
                    state = ctx.channel().attr(STATE).get();
                }
                while (b.isReadable()) {
                    byte v = b.readByte();
                    if (state[0] < 0) {
                        state[0] = v & 0xff;
                    } else if (v != expected(state[0], state[1]++)) {
                        mismatches.incrementAndGet();
                    }
                }
                if (state[1] == BYTES) {
                    done.countDown();
                }
            } finally {
                b.release();
            }
        }
    }

    private static final io.netty.util.AttributeKey<int[]> STATE = io.netty.util.AttributeKey.valueOf("ringGrowth");

    @Test
    void aBurstLargerThanTheRingGrowsItAndLosesNothing() throws Exception {
        Checker checker = new Checker();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(checker).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        RingwireCounters counters = RingwireCounters.of(server.eventLoop());
        int before = server.eventLoop().submit(counters::bufferRingBuffers).get();
        assertEquals(RingwireIoHandlerConfig.INITIAL_ENTRIES, before, "a fresh loop's ring starts small");
        List<Socket> clients = new ArrayList<>();
        try {
            for (int c = 0; c < CONNS; c++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress())
                    .getPort()));
            }
            assertTrue(checker.active.await(20, TimeUnit.SECONDS), "every connection accepted before the burst");
            CountDownLatch release = hold(server.eventLoop()); // the burst piles up while the loop is held
            for (int c = 0; c < CONNS; c++) {
                byte[] data = new byte[BYTES + 1];
                data[0] = (byte) c;
                for (int i = 0; i < BYTES; i++) {
                    data[i + 1] = expected(c, i);
                }
                OutputStream out = clients.get(c).getOutputStream();
                out.write(data);
                out.flush();
            }
            release.countDown();
            assertTrue(checker.done.await(30, TimeUnit.SECONDS), counters::toString);
            assertEquals(0, checker.mismatches.get(), "every byte intact and in order");
            long exhausted = server.eventLoop().submit(counters::bufferRingExhausted).get();
            int after = server.eventLoop().submit(counters::bufferRingBuffers).get();
            assertTrue(exhausted >= 1, () -> "a burst of " + CONNS + " × 32 KiB found 64 buffers too few: " + counters);
            assertTrue(after > before && after <= 512, () -> "the ring grew as far as the burst needed: " + counters);
            assertEquals(0L, (long) server.eventLoop().submit(counters::dryRingFallbacks).get(),
                () -> "a ring that could grow sent no receive to a buffer of its own: " + counters);
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            server.close().sync();
        }
    }
}
