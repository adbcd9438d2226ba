package io.ringwire.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The tests' echo server handler (shared by every child channel): writes back what it reads, flushes once per
 * batch, and keeps track of its channels: which became active, how many are open now and at most, errors.
 */
@ChannelHandler.Sharable
final class TrackingEcho extends ChannelInboundHandlerAdapter {
    final List<Channel> channels = new CopyOnWriteArrayList<>();
    final CountDownLatch active;
    final AtomicInteger open = new AtomicInteger();
    final AtomicInteger mostOpen = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();

    /** @param expected connections {@link #active} counts down for */
    TrackingEcho(int expected) {
        active = new CountDownLatch(expected);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channels.add(ctx.channel());
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        active.countDown();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        errors.incrementAndGet();
        ctx.close();
    }

    static {
        // the JDK keeps one end of a socketpair open for good once its sockets are first used (sun.nio.ch's
        // pre-close descriptor): made here, before any count, so that a test's first JDK socket does not look like
        // a descriptor it leaked
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return this process's open file descriptors, not counting the jar files the class loader opens (and keeps
     *         open) the first time a class is looked up in them, which a test may cause at any point
     */
    static long openFds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.filter(fd -> !isJar(fd)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param expected the count to wait for
     * @return the open descriptors once back to {@code expected}, or after 30 s: the count decides, the time only
     *         bounds the wait (a channel's close(2) follows the completions of its cancelled operations, on its loop)
     * @throws InterruptedException if interrupted while waiting
     */
    static long openFdsBackTo(long expected) throws InterruptedException {
        for (int i = 0; i < 600 && openFds() != expected; i++) {
            Thread.sleep(50);
        }
        return openFds();
    }

    private static boolean isJar(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString().endsWith(".jar");
        } catch (IOException | UnsupportedOperationException e) {
            return false; // closed meanwhile (e.g. the listing's own descriptor)
        }
    }
}
