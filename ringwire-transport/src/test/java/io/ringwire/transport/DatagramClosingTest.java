package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Datagram channels closed with sends in flight and receives armed, on the loop and from another thread: every write
 * future finishes (sent, or failed as closed), every buffer goes back (the module's leak detector runs at PARANOID),
 * and every descriptor is closed.
 */
class DatagramClosingTest extends OneLoopTestBase {
    @Test
    void closingWithSendsInFlightLosesNothing() throws Exception {
        long fdsBefore = TrackingEcho.openFds();
        InetAddress lo = InetAddress.getLoopbackAddress();
        Channel sink = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                }
            }).bind(new InetSocketAddress(lo, 0)).sync().channel();
        InetSocketAddress to = (InetSocketAddress) sink.localAddress();
        List<ChannelFuture> writes = new ArrayList<>();
        try {
            for (int round = 0; round < 200; round++) {
                Channel ch = new Bootstrap().group(group)
                    .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .handler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress(lo, 0)).sync().channel();
                boolean onLoop = round % 2 == 0;
                Runnable burst = () -> {
                    for (int i = 0; i < 100; i++) {
                        ByteBuf content = i % 3 == 0
                            ? Unpooled.wrappedBuffer(Unpooled.directBuffer(8).writeLong(i),
                                Unpooled.directBuffer(500).writeZero(500))
                            : PooledByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
                        writes.add(ch.write(new DatagramPacket(content, to)));
                        if (i % 10 == 9) {
                            ch.flush();
                        }
                    }
                    if (onLoop) {
                        ch.close(); // in the same task: SENDMSGs prepared, not yet submitted
                    }
                };
                ch.eventLoop().submit(burst).sync();
                if (!onLoop) {
                    ch.close(); // from this thread, racing the loop's enter
                }
                assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS), "closed");
            }
            for (ChannelFuture f : writes) {
                assertTrue(f.await(10, TimeUnit.SECONDS), "every write finished");
                assertTrue(f.isSuccess() || f.cause() instanceof ClosedChannelException,
                    () -> "sent or failed as closed: " + f.cause());
            }
        } finally {
            sink.close().sync();
        }
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "every socket closed");
    }

    /**
     * The hazard of Netty's IoUringDatagramWriteLifecycleTest: a datagram flushed and the channel closed in the same
     * task, before the loop prepared its SENDMSG. Netty's io_uring keeps the buffer until that SENDMSG's completion;
     * Ringwire's close sends what was flushed with sendmsg(2) first (it used to fail it as closed: the datagram was
     * dropped), so the buffer goes back inside close. Checked from the outside: the memory given back is taken again
     * at once (the loop thread's pool cache hands out the same piece) and overwritten; the datagram that arrives must
     * be the original bytes.
     */
    @Test
    void aDatagramFlushedThenClosedIsSentBeforeItsBufferGoesBack() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        java.util.concurrent.CompletableFuture<byte[]> arrived = new java.util.concurrent.CompletableFuture<>();
        Channel sink = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf b = ((DatagramPacket) msg).content();
                    arrived.complete(io.netty.buffer.ByteBufUtil.getBytes(b));
                    ReferenceCountUtil.release(msg);
                }
            }).bind(new InetSocketAddress(lo, 0)).sync().channel();
        Channel ch = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new InetSocketAddress(lo, 0)).sync().channel();
        ByteBuf[] reused = new ByteBuf[1];
        try {
            int refCntAfterClose = ch.eventLoop().submit(() -> {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
                for (int i = 0; i < 1024; i++) {
                    b.writeByte(0x11);
                }
                ch.writeAndFlush(new DatagramPacket(b, (InetSocketAddress) sink.localAddress()));
                ch.close();
                int refCnt = b.refCnt(); // read before the buffer object itself may be recycled below
                if (refCnt == 0) {
                    reused[0] = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
                    for (int i = 0; i < 1024; i++) {
                        reused[0].writeByte(0xEE);
                    }
                }
                return refCnt;
            }).get(10, TimeUnit.SECONDS);
            assertEquals(0, refCntAfterClose, "sent inside close, and given back there");
            byte[] got = arrived.get(10, TimeUnit.SECONDS);
            assertEquals(1024, got.length);
            for (byte x : got) {
                assertEquals(0x11, x, "the kernel read the datagram's bytes before the buffer went back");
            }
            assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS));
        } finally {
            if (reused[0] != null) {
                reused[0].release();
            }
            sink.close().sync();
        }
    }

    /**
     * Datagrams flushed and the channel closed in the same task, an empty one among them: close sends them with
     * sendmsg(2), one zero-length iovec for the empty one, which arrives empty, in order with the others.
     */
    @Test
    void anEmptyDatagramFlushedThenClosedIsSentEmptyInOrder() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        java.util.concurrent.BlockingQueue<byte[]> arrived = new java.util.concurrent.LinkedBlockingQueue<>();
        Channel sink = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    arrived.add(io.netty.buffer.ByteBufUtil.getBytes(((DatagramPacket) msg).content()));
                    ReferenceCountUtil.release(msg);
                }
            }).bind(new InetSocketAddress(lo, 0)).sync().channel();
        Channel ch = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new InetSocketAddress(lo, 0)).sync().channel();
        try {
            InetSocketAddress to = (InetSocketAddress) sink.localAddress();
            List<ChannelFuture> writes = ch.eventLoop().submit(() -> {
                List<ChannelFuture> w = List.of(
                    ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), to)),
                    ch.write(new DatagramPacket(Unpooled.directBuffer(8), to)),
                    ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {4, 5}), to)));
                ch.flush();
                ch.close();
                return w;
            }).get(10, TimeUnit.SECONDS);
            for (ChannelFuture f : writes) {
                assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "sent: " + f.cause());
            }
            assertArrayEquals(new byte[] {1, 2, 3}, arrived.poll(10, TimeUnit.SECONDS));
            assertArrayEquals(new byte[0], arrived.poll(10, TimeUnit.SECONDS), "the empty datagram, in its place");
            assertArrayEquals(new byte[] {4, 5}, arrived.poll(10, TimeUnit.SECONDS));
            assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS));
        } finally {
            sink.close().sync();
        }
    }
}
