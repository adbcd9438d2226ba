package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes that arrive after a handler turned autoRead off wait for its next read(), and touch nothing meanwhile: no
 * channelReadComplete without a channelRead, and the allocator's guess unchanged, so the read() hands them up as
 * Netty's epoll and NIO would read them from the socket then (here in one buffer). A read-shaping handler
 * (Netty's TrafficShapingHandler) pauses for what each message weighs, and counts on that.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadWhilePausedTest extends OneLoopTestBase {

    @Test
    void bytesKeptWhilePausedGoUpWholeAtTheNextRead() throws Exception {
        List<Integer> reads = new CopyOnWriteArrayList<>();
        AtomicInteger readCompletes = new AtomicInteger();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        reads.add(((ByteBuf) msg).readableBytes());
                        ((ByteBuf) msg).release();
                        ctx.channel().config().setAutoRead(false); // pause after each message, as shaping does
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        readCompletes.incrementAndGet();
                    }
                }).connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                OutputStream out = peer.getOutputStream();
                out.write(new byte[1024]);
                out.flush();
                waitFor(() -> reads.size() == 1 && readCompletes.get() == 1);
                assertEquals(List.of(1024), reads);

                // paused now: these arrive on the receive still armed, and are kept for a read()
                out.write(new byte[2048]);
                out.flush();
                AbstractRingwireStreamChannel rw = (AbstractRingwireStreamChannel) ch;
                waitFor(() -> ch.eventLoop().submit(rw::pendingInputBytes).get() == 2048);
                assertEquals(1, readCompletes.get(), "no channelReadComplete for a batch that delivered nothing");
                assertEquals(List.of(1024), reads);

                ch.read();
                waitFor(() -> readCompletes.get() == 2);
                assertEquals(List.of(1024, 2048), reads, "the kept bytes in one message, as the socket had them");
            } finally {
                ch.close().sync();
            }
        }
    }

    /**
     * A handler that reads one message with autoRead off and closes the channel in its channelRead: the rest of
     * the receive that brought it (the allocator's guess caps each message) comes after the close, and is dropped
     * with the buffers it would have been kept in. Every buffer the channel's allocator gave is released.
     */
    @Test
    void bytesThatComeAfterAPausedChannelClosedAreReleased() throws Exception {
        CountingAllocator alloc = new CountingAllocator();
        List<Integer> reads = new CopyOnWriteArrayList<>();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOCATOR, alloc)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(512))
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        reads.add(((ByteBuf) msg).readableBytes());
                        ((ByteBuf) msg).release();
                        ctx.close();
                    }
                }).connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                OutputStream out = peer.getOutputStream();
                out.write(new byte[4096]); // on loopback, in the socket when write returns: one receive takes it all
                out.flush();
                ch.read();
                assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "closed by the handler");
                assertEquals(List.of(512), reads, "one message, then the close");
                AbstractRingwireStreamChannel rw = (AbstractRingwireStreamChannel) ch;
                assertEquals(0, ch.eventLoop().submit(rw::pendingInputBytes).get(),
                    "nothing kept by the closed channel");
                assertEquals(0, alloc.heldAfterWaiting(), "every buffer the channel allocated was released");
                assertTrue(alloc.allocated() >= 1, "the message came in a buffer of the channel's allocator");
            } finally {
                ch.close().sync();
            }
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitFor(Condition c) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached in 30 s");
            }
            Thread.sleep(5);
        }
    }
}
