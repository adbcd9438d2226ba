package io.ringwire.transport.testsuite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.testsuite.transport.AbstractSingleThreadEventLoopTest;
import io.netty.util.concurrent.AutoScalingEventExecutorChooserFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's event-loop tests (registration counts, shutdown before and after start, scheduled tasks, auto-scaling
 * groups that suspend an idle loop and wake it with a task) on Ringwire's loop, as Netty's io_uring and epoll modules
 * run them. The auto-scaling group's loops run without SINGLE_ISSUER: with it a ring is bound to its first thread, and
 * a Ringwire loop then declines to be suspended ({@code LoopSuspensionTest}).
 *
 * <p>Netty's five shutdown tests bound their waits at 200-600 ms, which a loaded 2-core machine can exceed while four
 * loops each set up and tear down a ring: they run here with the same checks and the same order of calls, their
 * bounds raised to {@link #HANG} so that only a hang fails them. So do its registration-count test (5 s for the
 * whole test, 1 s per look) and its two auto-scaling tests, which give the scaler 5 and 10 s to scale down and use a
 * 100 ms utilisation window: here the window is {@link #SCALING_WINDOW_MS}, so that their checks between two of the
 * scaler's decisions (every loop awake just after start, and again just after a task woke one) hold unless the
 * machine stalls for that long.
 */
class RingwireEventLoopTest extends AbstractSingleThreadEventLoopTest {
    /** How long a shutdown may take before the test calls it a hang. */
    private static final long HANG = 30;
    /** The auto-scaling group's utilisation window (Netty's tests: 100 ms). */
    private static final long SCALING_WINDOW_MS = 1_000;

    @Test
    @Override
    public void testChannelsRegistered() throws Exception {
        EventLoopGroup group = newEventLoopGroup();
        SingleThreadEventLoop loop = (SingleThreadEventLoop) group.next();
        try {
            Channel ch1 = newChannel();
            Channel ch2 = newChannel();
            boolean channelCountSupported = registeredChannels(loop) != -1;
            if (channelCountSupported) {
                assertEquals(0, registeredChannels(loop));
            }
            assertTrue(loop.register(ch1).syncUninterruptibly().isSuccess());
            assertTrue(loop.register(ch2).syncUninterruptibly().isSuccess());
            if (channelCountSupported) {
                awaitRegisteredChannels(loop, 2);
            }
            assertTrue(ch1.deregister().syncUninterruptibly().isSuccess());
            if (channelCountSupported) {
                awaitRegisteredChannels(loop, 1);
            }
        } finally {
            group.shutdownGracefully();
        }
    }

    private static void awaitRegisteredChannels(SingleThreadEventLoop loop, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG);
        while (registeredChannels(loop) != n) {
            assertTrue(System.nanoTime() < deadline, () -> "still not " + n + " registered channels");
            Thread.sleep(50);
        }
    }

    private static int registeredChannels(SingleThreadEventLoop loop) throws Exception {
        return loop.submit(loop::registeredChannels).get(HANG, TimeUnit.SECONDS);
    }

    @Test
    @Override
    public void testAutoScalingEventLoopGroupCanScaleDownAndBeUsed() throws Exception {
        EventLoopGroup group = newAutoScalingEventLoopGroup();
        try {
            startAllExecutors(group);
            assertEquals(SCALING_MAX_THREADS, countActiveExecutors(group),
                "Group should start with max threads active.");
            awaitScaledDown(group);
        } finally {
            group.shutdownGracefully().syncUninterruptibly();
        }
    }

    @Test
    @Override
    public void testSubmittingTaskWakesUpSuspendedExecutor() throws Exception {
        EventLoopGroup group = newAutoScalingEventLoopGroup();
        try {
            startAllExecutors(group);
            assertEquals(SCALING_MAX_THREADS, countActiveExecutors(group), "Group should start with max threads.");
            awaitScaledDown(group);
            EventLoop suspendedLoop = null;
            for (EventExecutor exec : group) {
                if (exec.isSuspended()) {
                    suspendedLoop = (EventLoop) exec;
                    break;
                }
            }
            assertNotNull(suspendedLoop, "Could not find a suspended executor to test.");
            int i = 0;
            boolean isSuspended;
            do {
                suspendedLoop.submit(() -> { }).sync();
            } while ((isSuspended = suspendedLoop.isSuspended()) && i++ < 10);
            assertFalse(isSuspended, "Executor should wake up after task submission.");
            assertEquals(SCALING_MAX_THREADS, countActiveExecutors(group),
                "Active executor count should increase after wake-up.");
        } finally {
            group.shutdownGracefully().sync();
        }
    }

    private static void startAllExecutors(EventLoopGroup group) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(SCALING_MAX_THREADS);
        for (EventExecutor executor : group) {
            executor.execute(started::countDown);
        }
        started.await();
    }

    private static void awaitScaledDown(EventLoopGroup group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG);
        while (countActiveExecutors(group) > SCALING_MIN_THREADS && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(SCALING_MIN_THREADS, countActiveExecutors(group), "Group did not scale down to min threads.");
    }

    private static int countActiveExecutors(EventLoopGroup group) {
        int active = 0;
        for (EventExecutor executor : group) {
            if (!executor.isSuspended()) {
                active++;
            }
        }
        return active;
    }

    @Test
    @Override
    @SuppressWarnings("deprecation")
    public void shutdownBeforeStart() throws Exception {
        EventLoopGroup group = newEventLoopGroup();
        assertFalse(group.awaitTermination(2, TimeUnit.MILLISECONDS));
        group.shutdown();
        assertTrue(group.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    @Test
    @Override
    public void shutdownGracefullyZeroQuietBeforeStart() throws Exception {
        EventLoopGroup group = newEventLoopGroup();
        assertTrue(group.shutdownGracefully(0L, 2L, TimeUnit.SECONDS).await(HANG, TimeUnit.SECONDS));
    }

    @Test
    @Override
    public void testShutdownGracefullyNoQuietPeriod() throws Exception {
        EventLoopGroup loop = newEventLoopGroup();
        // the server channel stays open: the loop must shut down all the same (on loopback, where Netty's binds to
        // every interface)
        new ServerBootstrap().group(loop).channel(serverChannelClass())
            .childHandler(new ChannelInboundHandlerAdapter())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync();
        Future<?> f = loop.shutdownGracefully(0, 1, TimeUnit.MINUTES);
        assertTrue(loop.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(f.syncUninterruptibly().isSuccess());
        assertTrue(loop.isShutdown());
        assertTrue(loop.isTerminated());
    }

    @Test
    @Override
    public void shutdownGracefullyBeforeStart() throws Exception {
        EventLoopGroup group = newEventLoopGroup();
        assertTrue(group.shutdownGracefully(200L, 1000L, TimeUnit.MILLISECONDS).await(HANG, TimeUnit.SECONDS));
    }

    @Test
    @Override
    public void gracefulShutdownAfterStart() throws Exception {
        EventLoop loop = newEventLoopGroup().next();
        CountDownLatch latch = new CountDownLatch(1);
        loop.execute(latch::countDown);
        latch.await(); // the loop's thread has started
        loop.shutdownGracefully(200L, 3000L, TimeUnit.MILLISECONDS);
        assertTrue(loop.awaitTermination(HANG, TimeUnit.SECONDS));
        assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }),
            "a task must be rejected after shutdown");
    }

    @Override
    protected EventLoopGroup newEventLoopGroup() {
        return new MultiThreadIoEventLoopGroup(RingwireIoHandler.newFactory());
    }

    @Override
    protected EventLoopGroup newAutoScalingEventLoopGroup() {
        return new MultiThreadIoEventLoopGroup(SCALING_MAX_THREADS, (Executor) null,
            new AutoScalingEventExecutorChooserFactory(SCALING_MIN_THREADS, SCALING_MAX_THREADS, SCALING_WINDOW_MS,
                TimeUnit.MILLISECONDS, SCALEDOWN_THRESHOLD, SCALEUP_THRESHOLD, SCALING_MAX_THREADS,
                SCALING_MAX_THREADS, SCALING_PATIENCE_CYCLES),
            RingwireIoHandler.newFactory(RingwireIoHandlerConfig.builder().singleIssuer(false).build()));
    }

    @Override
    protected Channel newChannel() {
        return new RingwireSocketChannel();
    }

    @Override
    protected Class<? extends ServerChannel> serverChannelClass() {
        return RingwireServerSocketChannel.class;
    }
}
