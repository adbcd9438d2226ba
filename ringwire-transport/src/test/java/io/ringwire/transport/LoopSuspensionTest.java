package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.AutoScalingEventExecutorChooserFactory;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty 4.2's auto-scaling event loop groups suspend an idle loop (its thread ends) and resume it on another thread
 * when work comes. With SINGLE_ISSUER off a Ringwire loop allows that, as Netty's io_uring does, and works on its
 * new thread (its ring fd registered again for that thread); with SINGLE_ISSUER on (the default), which binds the
 * ring to one thread, it says it cannot, and the group keeps it running. Waits are bounded only to catch a hang.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoopSuspensionTest {
    @Test
    void onlyALoopWithoutSingleIssuerMayChangeThreads() {
        assertFalse(RingwireIoHandler.newFactory().isChangingThreadSupported(), "the default binds the ring");
        assertTrue(RingwireIoHandler.newFactory(RingwireIoHandlerConfig.builder().singleIssuer(false).build())
            .isChangingThreadSupported());
    }

    @Test
    void anIdleLoopIsSuspendedAndWorksOnItsNewThreadWhenResumed() throws Exception {
        RingwireIoHandlerConfig config = RingwireIoHandlerConfig.builder().singleIssuer(false).build();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(2, (Executor) null,
            new AutoScalingEventExecutorChooserFactory(1, 2, 100, TimeUnit.MILLISECONDS, 0.2, 0.9, 2, 2, 1),
            RingwireIoHandler.newFactory(config));
        try {
            java.util.Map<EventExecutor, Thread> firstThread = new java.util.HashMap<>();
            for (EventExecutor e : group) {
                firstThread.put(e, e.submit(Thread::currentThread).get(30, TimeUnit.SECONDS)); // both loops started
            }
            EventLoop suspended = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (suspended == null && System.nanoTime() < deadline) {
                for (EventExecutor e : group) {
                    if (e.isSuspended()) {
                        suspended = (EventLoop) e;
                    }
                }
                Thread.sleep(20);
            }
            assertNotNull(suspended, "an idle loop of the group was suspended");
            EventLoop loop = suspended;

            // asked inside the task: once it has run, the idle loop may be suspended again at any time
            boolean[] suspendedWhileRunning = new boolean[1];
            Thread resumedOn = loop.submit(() -> {
                suspendedWhileRunning[0] = loop.isSuspended();
                return Thread.currentThread();
            }).get(30, TimeUnit.SECONDS);
            assertNotSame(firstThread.get(loop), resumedOn, "resumed on a new thread");
            assertFalse(suspendedWhileRunning[0], "a task resumes it");

            // the resumed loop still does I/O: a server and a client on it echo bytes (should the idle loop be
            // suspended again before they register, registering resumes it once more)
            Channel server = new ServerBootstrap().group(loop).channel(RingwireServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            CompletableFuture<String> echoed = new CompletableFuture<>();
            Channel client = new Bootstrap().group(loop).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        echoed.complete(b.toString(StandardCharsets.US_ASCII));
                        b.release();
                    }
                }).connect(server.localAddress()).sync().channel();
            try {
                client.writeAndFlush(Unpooled.copiedBuffer("after a suspension", StandardCharsets.US_ASCII));
                assertEquals("after a suspension", echoed.get(30, TimeUnit.SECONDS));
            } finally {
                client.close().sync();
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
