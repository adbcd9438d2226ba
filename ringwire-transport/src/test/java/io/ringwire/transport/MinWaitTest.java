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

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().minWaitMicros(MIN_WAIT_MICROS).build()));
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new TrackingEcho(1)).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
            .channel();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            s.setSoTimeout(10_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] m = new byte[100];
            for (int i = 0; i < 50; i++) { // one at a time: each waits for the loop's minimum, none is lost
                for (int j = 0; j < m.length; j++) {
                    m[j] = (byte) (i + j);
                }
                out.write(m);
                assertArrayEquals(m, in.readNBytes(m.length), "message " + i);
            }

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
    void aNegativeMinimumIsRefusedWithItsName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RingwireIoHandlerConfig.builder().minWaitMicros(-1).build());
        assertTrue(e.getMessage().contains("minWaitMicros"), e.getMessage());
        assertEquals(0, RingwireIoHandlerConfig.builder().build().minWaitMicros(), "off by default");
    }
}
