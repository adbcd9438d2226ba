package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero-copy sends (SEND_ZC / SENDMSG_ZC, {@link RingwireChannelOption#SEND_ZC_THRESHOLD}): every byte arrives in
 * order; a written buffer is released only after the kernel's notification (a buffer the kernel may still read from is
 * never back in the pool); on loopback the notification says the kernel copied, and the channel sends with a copy
 * from then on; a zero-copy send the kernel refuses goes again with a copy, nothing lost or doubled.
 */
class ZeroCopySendTest extends OneLoopTestBase {
    private static final int PIECE = 64 * 1024;

    @AfterEach
    void defaults() {
        ZeroCopySends.keepWhenCopied = false;
        TestHooks.zeroCopySqeFlags = 0;
    }

    private record Outcome(RingwireCounters before, RingwireCounters after, List<ByteBuf> written) { }

    /**
     * Writes {@code pieces} buffers of 64 KiB (a byte pattern running across them), two per flush so that some go as
     * SENDMSG_ZC, to a JDK socket that reads them slowly at first (the socket fills and sends are partial), and
     * checks every byte there.
     */
    private static Outcome send(int pieces, int threshold) throws Exception {
        return send(pieces, threshold, false);
    }

    /**
     * @param firstNotified the first piece is written alone, and the rest only once its notification has come
     */
    private static Outcome send(int pieces, int threshold, boolean firstNotified) throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long total = (long) pieces * PIECE;
            CompletableFuture<Long> checked = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listener.accept(); InputStream in = s.getInputStream()) {
                    Thread.sleep(200); // let the socket buffers fill first
                    byte[] b = new byte[32 * 1024];
                    long at = 0;
                    for (int n; (n = in.read(b)) > 0; ) {
                        for (int i = 0; i < n; i++, at++) {
                            if (b[i] != (byte) (at * 7)) {
                                throw new AssertionError("byte " + at + " is " + b[i]);
                            }
                        }
                    }
                    return at;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(RingwireChannelOption.SEND_ZC_THRESHOLD, threshold)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()))
                .sync().channel();
            RingwireCounters counters = RingwireCounters.of(ch.eventLoop());
            RingwireCounters before = ch.eventLoop().submit(() -> snapshot(counters)).get();
            List<ByteBuf> written = new ArrayList<>();
            long at = 0;
            ChannelFuture last = null;
            for (int p = 0; p < pieces; p++) {
                byte[] bytes = new byte[PIECE];
                for (int i = 0; i < PIECE; i++, at++) {
                    bytes[i] = (byte) (at * 7);
                }
                ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(PIECE).writeBytes(bytes);
                written.add(buf.retain()); // the test's own reference: the channel's must be let go of
                last = ch.write(buf);
                if (p % 2 == 1) {
                    ch.flush();
                }
                if (p == 0 && firstNotified) {
                    ch.flush();
                    last.sync();
                    for (int i = 0; i < 3000 && ch.eventLoop().submit(() -> counters.zeroCopyCopied).get()
                        == before.zeroCopyCopied; i++) {
                        Thread.sleep(10); // the reader starts after 200 ms; the kernel copies as it delivers
                    }
                }
            }
            ch.flush();
            last.sync();
            ch.close().sync();
            assertEquals(total, (long) checked.get(30, TimeUnit.SECONDS), "every byte, in order");
            RingwireCounters after = ch.eventLoop().submit(() -> snapshot(counters)).get();
            return new Outcome(before, after, written);
        }
    }

    private static RingwireCounters snapshot(RingwireCounters c) {
        RingwireCounters s = new RingwireCounters("snapshot");
        s.zeroCopySends = c.zeroCopySends;
        s.zeroCopyCopied = c.zeroCopyCopied;
        s.zeroCopyRefused = c.zeroCopyRefused;
        s.writes = c.writes;
        return s;
    }

    /** Each written buffer is back to the test's one reference once the kernel's notifications have come. */
    private static void allLetGo(List<ByteBuf> written) throws InterruptedException {
        for (int i = 0; i < 3000 && written.stream().anyMatch(b -> b.refCnt() != 1); i++) {
            Thread.sleep(10);
        }
        for (ByteBuf b : written) {
            assertEquals(1, b.refCnt(), "the channel let go of every buffer, after the kernel's notification");
            b.release();
        }
    }

    @Test
    void onLoopbackTheKernelSaysItCopiedAndTheChannelSendsWithACopyFromThen() throws Exception {
        Outcome o = send(64, 1024, true);
        long zc = o.after().zeroCopySends - o.before().zeroCopySends;
        assertEquals(1, o.after().zeroCopyCopied - o.before().zeroCopyCopied, "the notification said: copied");
        assertEquals(1, zc, "the first write went zero-copy, and once told the kernel copies, the channel sent "
            + "with a copy");
        assertTrue(o.after().writes - o.before().writes > 1);
        allLetGo(o.written());
    }

    @Test
    void keptOnEverySendIsZeroCopyAndEveryBufferWaitsForItsNotification() throws Exception {
        ZeroCopySends.keepWhenCopied = true;
        Outcome o = send(64, 1024);
        long zc = o.after().zeroCopySends - o.before().zeroCopySends;
        long writes = o.after().writes - o.before().writes;
        // only a write finding 16 notifications still awaited goes with a copy: the first 16 cannot
        assertTrue(writes > 1);
        assertTrue(zc >= Math.min(writes, 16), zc + " zero-copy of " + writes + " writes");
        allLetGo(o.written());
    }

    @Test
    void belowTheThresholdNothingGoesZeroCopy() throws Exception {
        Outcome o = send(8, 1 << 30);
        assertEquals(0, o.after().zeroCopySends - o.before().zeroCopySends);
        allLetGo(o.written());
    }

    @Test
    void aZeroCopySendTheKernelRefusesGoesAgainWithACopy() throws Exception {
        TestHooks.zeroCopySqeFlags = (short) 0x4000; // no such IORING_SEND_ZC_* flag: EINVAL
        Outcome o = send(16, 1024);
        assertEquals(1, o.after().zeroCopyRefused - o.before().zeroCopyRefused, "refused once, then copied");
        assertEquals(1, o.after().zeroCopySends - o.before().zeroCopySends, "and not tried again on the channel");
        allLetGo(o.written());
    }
}
