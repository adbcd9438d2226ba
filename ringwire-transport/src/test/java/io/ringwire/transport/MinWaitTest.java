package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link RingwireIoHandlerConfig#minWaitMicros()}: a loop that sleeps through completions until the minimum has
 * passed still answers every message, runs tasks from other threads and scheduled ones, and does not wake at every
 * minimum when nothing comes (without a general timeout the kernel would end each wait there).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MinWaitTest {
    private static final int MIN_WAIT_MICROS = 2_000;
    private EventLoopGroup group;

    @AfterEach
    void stop() throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static boolean kernelHasMinTimeout() throws Exception {
        try (IoUring probe = IoUring.builder().entries(2).build()) {
            return (probe.features() & IoUringConstants.IORING_FEAT_MIN_TIMEOUT) != 0;
        }
    }

    @Test
    void echoesTasksAndTimersStillRunAndAnIdleLoopSleeps() throws Exception {
        assumeTrue(kernelHasMinTimeout(), "IORING_FEAT_MIN_TIMEOUT (Linux 6.12): without it the setting is ignored");
        Channel server = echoServer(MIN_WAIT_MICROS);
        try {
            // one at a time: each waits for the loop's minimum, none is lost
            pingPong(((InetSocketAddress) server.localAddress()).getPort(), 0, 50, 0);

            CompletableFuture<Thread> ran = new CompletableFuture<>();
            server.eventLoop().execute(() -> ran.complete(Thread.currentThread()));
            assertTrue(ran.get(10, TimeUnit.SECONDS) != null, "a task from another thread runs");
            CompletableFuture<Boolean> fired = new CompletableFuture<>();
            server.eventLoop().schedule(() -> fired.complete(true), 5, TimeUnit.MILLISECONDS);
            assertTrue(fired.get(10, TimeUnit.SECONDS), "a scheduled task runs");

            RingwireCounters c = RingwireCounters.of(server.eventLoop());
            long before = server.eventLoop().submit(c::enters).get(10, TimeUnit.SECONDS);
            Thread.sleep(400); // idle: 200 minimums long
            long idleEnters = server.eventLoop().submit(c::enters).get(10, TimeUnit.SECONDS) - before;
            assertTrue(idleEnters < 20, () -> "an idle loop sleeps until something comes or its timeout (a second), "
                + "not until each minimum: " + idleEnters + " enters in 400 ms");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aTrickleOfCompletionsGetsPlainWaitsAndAStreamSleepsWithTheMinimum() throws Exception {
        assumeTrue(kernelHasMinTimeout(), "IORING_FEAT_MIN_TIMEOUT (Linux 6.12): without it the setting is ignored");
        // 10 ms: the loop takes the minimum from 4 completions per 10 ms (400 a second) on, judged every 160 ms
        Channel server = echoServer(10_000);
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        RingwireCounters c = RingwireCounters.of(server.eventLoop());
        try {
            // a trickle on a fresh loop: one message every 30 ms, about 3 completions each (receive, send, and
            // maybe a wake-up), about 100 a second: a quarter of what the minimum needs, fewer on a slower machine
            pingPong(port, 99, 10, 30);
            long trickled = server.eventLoop().submit(c::minWaits).get(10, TimeUnit.SECONDS);
            assertEquals(0, trickled, () -> "a message now and then is answered after a plain wait: " + c);

            // a stream: 16 connections each echoing one message after another for at least 600 ms: thousands of
            // completions a second before the minimum applies, and about 32 per minimum once it does
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
            List<CompletableFuture<Void>> peers = new ArrayList<>();
            for (int p = 0; p < 16; p++) {
                int peer = p;
                peers.add(CompletableFuture.runAsync(() -> pingPong(port, peer, until)));
            }
            for (CompletableFuture<Void> f : peers) {
                f.get(30, TimeUnit.SECONDS);
            }
            long streamed = server.eventLoop().submit(c::minWaits).get(10, TimeUnit.SECONDS);
            assertTrue(streamed > 0, "a loop with completions coming several per minimum sleeps with it: " + c);
        } finally {
            server.close().sync();
        }
    }

    /** @return an echo server on a loop (this test's group) with the minimum wait {@code minWaitMicros} */
    private Channel echoServer(int minWaitMicros) throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().minWaitMicros(minWaitMicros).build()));
        return new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new TrackingEcho(1)).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
            .channel();
    }

    /** Messages of 64 bytes on a new connection, each echoed before the next, until {@code untilNanos}. */
    private static void pingPong(int port, int peer, long untilNanos) {
        pingPong(port, peer, Integer.MAX_VALUE, 0, untilNanos);
    }

    /** {@code messages} messages of 64 bytes on a new connection, each echoed before the next, {@code pauseMillis} apart. */
    private static void pingPong(int port, int peer, int messages, long pauseMillis) {
        pingPong(port, peer, messages, pauseMillis, Long.MAX_VALUE);
    }

    private static void pingPong(int port, int peer, int messages, long pauseMillis, long untilNanos) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.setTcpNoDelay(true);
            byte[] m = new byte[64];
            for (int i = 0; i < messages && (untilNanos == Long.MAX_VALUE || System.nanoTime() - untilNanos < 0);
                 i++) {
                for (int j = 0; j < m.length; j++) {
                    m[j] = (byte) (peer * 31 + i + j);
                }
                s.getOutputStream().write(m);
                assertArrayEquals(m, s.getInputStream().readNBytes(m.length), "peer " + peer + ", message " + i);
                if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                }
            }
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("peer " + peer, e);
        }
    }

    @Test
    void theMinimumPaysFromFourCompletionsPerMinimum() {
        long second = TimeUnit.SECONDS.toNanos(1);
        // 200 µs: from 20,000 completions a second (the lab's echo at 20k msgs/s makes 40,000)
        assertTrue(RingwireIoHandler.minWaitPays(20_000, second, 200));
        assertTrue(RingwireIoHandler.minWaitPays(40_000, second, 200));
        assertFalse(RingwireIoHandler.minWaitPays(19_999, second, 200));
        assertFalse(RingwireIoHandler.minWaitPays(1_000, second, 200), "an echo at 500 msgs/s");
        assertFalse(RingwireIoHandler.minWaitPays(0, TimeUnit.MILLISECONDS.toNanos(10), 200), "idle");
        assertTrue(RingwireIoHandler.minWaitPays(4, TimeUnit.MILLISECONDS.toNanos(10), 10_000));
    }

    @Test
    void aNegativeMinimumIsRefusedWithItsName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RingwireIoHandlerConfig.builder().minWaitMicros(-1).build());
        assertTrue(e.getMessage().contains("minWaitMicros"), e.getMessage());
        assertEquals(0, RingwireIoHandlerConfig.builder().build().minWaitMicros(), "off by default");
    }
}
