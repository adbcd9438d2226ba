package io.ringwire.transport.testsuite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.testsuite.transport.AbstractSingleThreadEventLoopTest;
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

import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * bounds raised to {@link #HANG} so that only a hang fails them.
 */
class RingwireEventLoopTest extends AbstractSingleThreadEventLoopTest {
    /** How long a shutdown may take before the test calls it a hang. */
    private static final long HANG = 30;

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
        return new MultiThreadIoEventLoopGroup(SCALING_MAX_THREADS, (Executor) null, AUTO_SCALING_CHOOSER_FACTORY,
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
