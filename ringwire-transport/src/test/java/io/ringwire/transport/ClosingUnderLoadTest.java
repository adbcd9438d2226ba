package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.AttributeKey;
import io.ringwire.uring.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels closed and deregistered at random while reads, writes, connects and accepts are in flight, from the loop
 * and from other threads; then the loops shut down with 2,000 channels still streaming. Nothing may reach a
 * handler after its channel went inactive, no handler may see anything but an I/O error, and once the loops are gone
 * the process's descriptors and the binding's native memory are back where they were (leaked ByteBufs are caught by
 * the module's PARANOID leak detection).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClosingUnderLoadTest {
    private static final AttributeKey<Boolean> INACTIVE = AttributeKey.valueOf("inactive");
    private static final int MESSAGE = 2048;

    /** Echo on the server side, ping-pong on the client side: each channel keeps a few messages in flight. */
    @ChannelHandler.Sharable
    private static final class Busy extends ChannelInboundHandlerAdapter {
        final boolean client;
        final List<Channel> channels = new CopyOnWriteArrayList<>();
        final AtomicLong afterInactive = new AtomicLong();
        final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

        Busy(boolean client) {
            this.client = client;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channels.add(ctx.channel());
            if (client) {
                for (int i = 0; i < 4; i++) {
                    ctx.writeAndFlush(ctx.alloc().directBuffer(MESSAGE).writeZero(MESSAGE));
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ctx.channel().attr(INACTIVE).set(true);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (ctx.channel().attr(INACTIVE).get() != null) {
                afterInactive.incrementAndGet();
            }
            ctx.writeAndFlush(msg); // both sides send back what they get: the traffic never stops
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!(cause instanceof IOException)) {
                unexpected.add(cause);
            }
            ctx.close();
        }
    }

    private static EventLoop otherLoop(EventLoopGroup group, EventLoop current) {
        for (io.netty.util.concurrent.EventExecutor e : group) {
            if (e != current) {
                return (EventLoop) e;
            }
        }
        return current;
    }

    @Test
    void closingAndDeregisteringAtRandomThenShuttingDownLeavesNothingBehind() throws Exception {
        long fdsBefore = TrackingEcho.openFds();
        long nativeBefore = NativeMemory.heldBytes();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
        Busy serverSide = new Busy(false);
        Busy clientSide = new Busy(true);
        Random random = new Random(42);
        List<Channel> servers = new ArrayList<>();
        try {
            for (int s = 0; s < 3; s++) {
                servers.add(new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                    .childHandler(serverSide).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .sync().channel());
            }
            Bootstrap client = new Bootstrap().group(group).channel(RingwireSocketChannel.class).handler(clientSide);
            for (int c = 0; c < 1000; c++) { // 2,000 busy channels, both sides
                client.connect(servers.get(c % servers.size()).localAddress()).sync();
            }
            for (int step = 0; step < 400; step++) {
                List<Channel> all = new ArrayList<>(clientSide.channels);
                all.addAll(serverSide.channels);
                Channel victim = all.get(random.nextInt(all.size()));
                switch (random.nextInt(6)) {
                    case 0 -> victim.close(); // from another thread: hops to the loop
                    case 1 -> victim.eventLoop().execute(victim::close); // on the loop, amid its completions
                    case 2 -> {
                        EventLoop other = otherLoop(group, victim.eventLoop());
                        victim.deregister().addListener(f -> {
                            if (f.isSuccess() && victim.isOpen()) {
                                other.register(victim);
                            }
                        });
                    }
                    case 3 -> client.connect(servers.get(random.nextInt(servers.size())).localAddress()).channel()
                        .close(); // closed while its CONNECT is in flight
                    case 4 -> client.connect(servers.get(random.nextInt(servers.size())).localAddress());
                    default -> victim.eventLoop().execute(() -> {
                        victim.write(victim.alloc().directBuffer(MESSAGE).writeZero(MESSAGE));
                        victim.close(); // closed with a write just queued
                    });
                }
                if (step % 100 == 99) {
                    // a listener closed while connections to it are being accepted
                    Channel old = servers.remove(0);
                    for (int i = 0; i < 5; i++) {
                        client.connect(old.localAddress());
                    }
                    old.close();
                    servers.add(new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                        .childHandler(serverSide).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .sync().channel());
                }
                Thread.sleep(random.nextInt(3));
            }
        } finally {
            // shut down with about 2,000 channels still streaming
            assertTrue(group.shutdownGracefully(0, 10, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS));
        }
        List<Channel> every = new ArrayList<>(clientSide.channels);
        every.addAll(serverSide.channels);
        for (Channel ch : every) {
            assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS), () -> ch + " closed (registered="
                + ch.isRegistered() + ", open=" + ch.isOpen() + ", its loop terminated="
                + ch.eventLoop().isTerminated() + ", " + ((AbstractRingwireChannel) ch).registration + ")");
        }
        assertEquals(0, clientSide.afterInactive.get() + serverSide.afterInactive.get(),
            "no read reached a handler after its channel went inactive");
        List<Throwable> unexpected = new ArrayList<>(clientSide.unexpected);
        unexpected.addAll(serverSide.unexpected);
        unexpected.removeIf(t -> t instanceof ClosedChannelException);
        assertEquals(List.of(), unexpected, "handlers saw only I/O errors");
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "every descriptor closed");
        assertEquals(nativeBefore, NativeMemory.heldBytes(), "every ring and buffer ring freed");
    }
}
