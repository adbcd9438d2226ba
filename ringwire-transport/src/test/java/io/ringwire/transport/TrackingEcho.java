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

    /** @return this process's open file descriptors ({@code /proc/self/fd}) */
    static long openFds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
