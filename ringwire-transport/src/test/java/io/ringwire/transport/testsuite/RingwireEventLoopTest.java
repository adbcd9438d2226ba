package io.ringwire.transport.testsuite;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.testsuite.transport.AbstractSingleThreadEventLoopTest;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.util.concurrent.Executor;

/**
 * Netty's event-loop tests (registration counts, shutdown before and after start, scheduled tasks, auto-scaling
 * groups that suspend an idle loop and wake it with a task) on Ringwire's loop, as Netty's io_uring and epoll modules
 * run them. The auto-scaling group's loops run without SINGLE_ISSUER: with it a ring is bound to its first thread, and
 * a Ringwire loop then declines to be suspended ({@code LoopSuspensionTest}).
 */
class RingwireEventLoopTest extends AbstractSingleThreadEventLoopTest {
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
