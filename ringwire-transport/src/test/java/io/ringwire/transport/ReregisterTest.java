package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection deregistered from one loop and registered with another, again and again, while its peer streams:
 * the receive it had armed on the old loop must not keep reading there (two loops reading one socket split and
 * reorder the stream, and a completion from the old loop's buffer ring read through the new loop's ring is garbage).
 * Every byte must arrive once, in order, and every channelRead must run on the loop the channel is registered with.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReregisterTest {
    private static final int HOPS = 40;

    private static byte expected(long position) {
        return (byte) (position * 31 + (position >>> 13));
    }

    private static final class Checker extends ChannelInboundHandlerAdapter {
        final AtomicLong received = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final AtomicLong wrongThread = new AtomicLong();
        final CompletableFuture<Channel> child = new CompletableFuture<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile long total = Long.MAX_VALUE;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            child.complete(ctx.channel());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                if (!ctx.channel().eventLoop().inEventLoop()) {
                    wrongThread.incrementAndGet();
                }
                byte[] bytes = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), bytes);
                long pos = received.get();
                for (byte value : bytes) {
                    if (value != expected(pos++)) {
                        mismatches.incrementAndGet();
                    }
                }
                received.set(pos);
                if (pos >= total) {
                    done.complete(null);
                }
            } finally {
                b.release();
            }
        }
    }

    @ParameterizedTest(name = "directReceive={0}")
    @ValueSource(booleans = {true, false})
    void aStreamSurvivesHopsBetweenLoops(boolean directReceive) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().directReceive(directReceive).build()));
        try {
            Checker checker = new Checker();
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(checker).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
                .channel();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                Channel ch = checker.child.get(10, TimeUnit.SECONDS);
                AtomicReference<Throwable> writeFailure = new AtomicReference<>();
                AtomicLong written = new AtomicLong();
                java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                // the peer streams for as long as the hops go on
                Thread writer = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        OutputStream out = client.getOutputStream();
                        byte[] chunk = new byte[16 * 1024];
                        long pos = 0;
                        while (!stop.get()) {
                            for (int i = 0; i < chunk.length; i++) {
                                chunk[i] = expected(pos + i);
                            }
                            out.write(chunk);
                            pos += chunk.length;
                            written.set(pos);
                        }
                    } catch (Throwable t) {
                        writeFailure.set(t);
                    }
                });
                EventLoop a = ch.eventLoop();
                EventLoop b = null;
                for (io.netty.util.concurrent.EventExecutor e : group) {
                    if (e != a) {
                        b = (EventLoop) e;
                    }
                }
                for (int hop = 0; hop < HOPS; hop++) {
                    EventLoop target = ch.eventLoop() == a ? b : a;
                    ch.deregister().sync();
                    target.register(ch).sync();
                    assertTrue(ch.eventLoop() == target);
                    Thread.sleep(5);
                }
                stop.set(true);
                writer.join(10_000);
                assertEquals(null, writeFailure.get());
                checker.total = written.get();
                if (checker.received.get() >= written.get()) {
                    checker.done.complete(null);
                }
                checker.done.get(60, TimeUnit.SECONDS);
                assertEquals(written.get(), checker.received.get(), "every byte arrived once");
                assertEquals(0, checker.mismatches.get(), "no byte lost, repeated or reordered");
                assertEquals(0, checker.wrongThread.get(), "every read on the channel's own loop");
                ch.close().sync();
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
