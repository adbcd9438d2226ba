package io.ringwire.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.Future;
import io.ringwire.uring.IoUringConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** The IoHandler under Netty's event loop: tasks, timers, wake-ups, generic IoOps, shutdown. */
class RingwireIoHandlerTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRunEveryTaskSubmittedFromOtherThreads() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        try {
            var loop = group.next();
            AtomicInteger ran = new AtomicInteger();
            int threads = 3;
            int perThread = 5_000;
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        Future<?> f = loop.submit(ran::incrementAndGet);
                        if (ThreadLocalRandom.current().nextInt(8) == 0) {
                            // wait now and then, so the loop really goes to sleep between tasks
                            assertTrue(f.awaitUninterruptibly(10, TimeUnit.SECONDS), "task never ran: lost wake-up");
                        }
                    }
                    done.countDown();
                }).start();
            }
            assertTrue(done.await(50, TimeUnit.SECONDS));
            loop.submit(() -> { }).sync();
            assertEquals(threads * perThread, ran.get());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldFireScheduledTasksThroughTheEnterTimeout() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        try {
            long start = System.nanoTime();
            long fired = group.next().schedule(System::nanoTime, 50, TimeUnit.MILLISECONDS).get();
            assertTrue(fired - start >= TimeUnit.MILLISECONDS.toNanos(50), "not before its deadline");
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldDeliverGenericIoOpsAsEvents() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        try {
            IoEventLoop loop = (IoEventLoop) group.next();
            assertTrue(loop.isCompatible(RingwireIoHandle.class));
            CompletableFuture<RingwireIoEvent> seen = new CompletableFuture<>();
            CompletableFuture<Void> unregistered = new CompletableFuture<>();
            RingwireIoHandle ringwireHandle = new RingwireIoHandle() {
                @Override
                public void complete(byte opcode, int res, int flags, int data) {
                    RingwireIoEvent copy = new RingwireIoEvent();
                    copy.set(opcode, res, flags, data);
                    seen.complete(copy);
                }

                @Override
                public void unregistered() {
                    unregistered.complete(null);
                }

                @Override
                public void close() {
                }
            };
            IoRegistration r = loop.register(ringwireHandle).get();
            loop.execute(() -> r.submit(RingwireIoOps.nop(1234)));
            RingwireIoEvent e = seen.get(10, TimeUnit.SECONDS);
            assertEquals(IoUringConstants.IORING_OP_NOP, e.opcode());
            assertEquals(0, e.res());
            assertEquals(1234, e.data());
            loop.submit(() -> r.cancel()).sync();
            unregistered.get(10, TimeUnit.SECONDS);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void shouldRefuseIosqeAsyncUnlessAskedFor() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RingwireIoOps(
            IoUringConstants.IORING_OP_NOP, IoUringConstants.IOSQE_ASYNC, (short) 0, -1, 0, 0, 0, 0, (short) 0, 0));
        assertTrue(e.getMessage().contains("io-wq"), e.getMessage());
    }

    @Test
    void shouldRejectNonsenseConfig() {
        assertThrows(IllegalArgumentException.class, () -> RingwireIoHandlerConfig.builder().bufferRingEntries(1000)
            .build());
        assertThrows(IllegalArgumentException.class, () -> RingwireIoHandlerConfig.builder().ringEntries(0).build());
    }
}
