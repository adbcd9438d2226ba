package io.ringwire.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.Errno;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** Tests that share one Ringwire event loop with default settings, and open raw sockets beside it. */
abstract class OneLoopTestBase {
    static EventLoopGroup group;

    @BeforeAll
    static void startLoop() {
        group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    /** @return the channel {@code channel} makes, registered with the loop (not bound or connected) */
    static <C extends io.netty.channel.Channel> C registered(java.util.function.Supplier<C> channel)
        throws InterruptedException {
        C ch = channel.get();
        group.register(ch).sync();
        return ch;
    }

    /**
     * Holds {@code loop} in a task until the returned latch is counted down, so that completions pile up for its next
     * enter; returns once the loop is held.
     *
     * @return the latch that releases it
     */
    static java.util.concurrent.CountDownLatch hold(io.netty.channel.EventLoop loop) throws InterruptedException {
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        loop.execute(() -> {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!held.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the loop did not run the holding task");
        }
        return release;
    }

    /**
     * A non-blocking IPv4 socket of the binding's (not the transport's), connected or connecting to {@code address}.
     *
     * @return its fd; the caller closes it
     * @throws NativeIoException if it cannot be opened or connect fails at once
     */
    static int connectRaw(InetSocketAddress address) throws NativeIoException {
        int fd = Sockets.open(SocketConstants.AF_INET, SocketConstants.SOCK_STREAM);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
            int c = Libc.connect(fd, sa, SockAddr.write(address, sa, false));
            if (c != 0 && c != -Errno.EINPROGRESS) {
                throw new NativeIoException("connect", -c);
            }
            return fd;
        } catch (NativeIoException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }
}
