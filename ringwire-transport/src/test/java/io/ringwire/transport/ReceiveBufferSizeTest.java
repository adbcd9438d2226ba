package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receive from the shared ring is copied into a buffer of the size received (at most the allocator's guess): a small
 * message holds as much pooled memory as it has bytes while it is in flight, not the guess's 2 KiB. And the guess
 * grows as epoll's does, as soon as one read fills it.
 */
class ReceiveBufferSizeTest extends OneLoopTestBase {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aSmallMessageArrivesInABufferOfItsOwnSize() throws Exception {
        List<int[]> seen = receive(null, 100, 3);
        for (int[] capacityAndBytes : seen) {
            assertEquals(capacityAndBytes[1], capacityAndBytes[0], "capacity against bytes received");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theAllocatorsGuessStillCapsEachBuffer() throws Exception {
        List<int[]> seen = receive(new FixedRecvByteBufAllocator(64), 200, 1);
        assertTrue(seen.size() >= 4, "200 bytes in buffers of at most 64: " + seen.size());
        for (int[] capacityAndBytes : seen) {
            assertTrue(capacityAndBytes[0] <= 64, "capacity " + capacityAndBytes[0]);
            assertEquals(capacityAndBytes[1], capacityAndBytes[0], "capacity against bytes received");
        }
    }

    /**
     * 128 KiB waiting in the socket when reading starts: the ring's receives of it complete in one batch. The first
     * fills the new connection's guess (2 KiB), which then grows at once, as epoll's read loop grows it, so the rest
     * arrives in buffers of whole receives. Before, the guess grew only at the batch's end, and every receive of the
     * batch went up in 2 KiB pieces (Vert.x's NetTest, delivering a message per 50 ms, ran out of time).
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theGuessGrowsWhenAReadFillsIt() throws Throwable {
        int total = 128 * 1024;
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(1);
        CountDownLatch accepted = new CountDownLatch(1);
        Channel[] child = new Channel[1];
        ServerBootstrap b = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.SO_RCVBUF, 1024 * 1024)
            .childHandler(new ChannelInboundHandlerAdapter() {
                private int bytes;

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    child[0] = ctx.channel();
                    accepted.countDown();
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf buf = (ByteBuf) msg;
                    sizes.add(buf.readableBytes());
                    bytes += buf.readableBytes();
                    buf.release();
                    if (bytes == total) {
                        all.countDown();
                    }
                }
            });
        Channel server = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try (Socket client = new Socket()) {
            client.connect(server.localAddress());
            assertTrue(accepted.await(20, TimeUnit.SECONDS), "accepted");
            client.getOutputStream().write(new byte[total]);
            client.getOutputStream().flush();
            // every byte in the server's socket before it reads (the client's socket drains into it)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (((AbstractRingwireChannel) child[0]).withFd(ReceiveBufferSizeTest::bytesWaiting) < total
                && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            child[0].config().setAutoRead(true);
            assertTrue(all.await(20, TimeUnit.SECONDS), "every byte arrived: " + sizes);
        } finally {
            server.close().sync();
        }
        long small = sizes.stream().filter(n -> n <= 2048).count();
        assertTrue(small <= 2, "pieces of 2 KiB or less among " + sizes.size() + " reads: " + sizes);
    }

    /** ioctl(2) with one pointer argument, linked once. */
    private static final MethodHandle IOCTL = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("ioctl").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
        Linker.Option.firstVariadicArg(2));

    /** @return ioctl(fd, FIONREAD): the bytes waiting in a socket's receive queue */
    private static int bytesWaiting(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(ValueLayout.JAVA_INT);
            int ret;
            try {
                ret = (int) IOCTL.invokeExact(fd, 0x541BL /* FIONREAD */, n);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            assertEquals(0, ret, "ioctl(FIONREAD)");
            return n.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** Sends {@code writes} writes of {@code size} bytes; returns each received buffer's capacity and bytes. */
    private static List<int[]> receive(RecvByteBufAllocator allocator, int size, int writes) throws Exception {
        List<int[]> seen = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(size * writes);
        ServerBootstrap b = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf buf = (ByteBuf) msg;
                    seen.add(new int[] {buf.capacity(), buf.readableBytes()});
                    for (int i = buf.readableBytes(); i > 0; i--) {
                        all.countDown();
                    }
                    buf.release();
                }
            });
        if (allocator != null) {
            b.childOption(ChannelOption.RECVBUF_ALLOCATOR, allocator);
        }
        Channel server = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try (Socket client = new Socket()) {
            client.connect(server.localAddress());
            OutputStream out = client.getOutputStream();
            for (int i = 0; i < writes; i++) {
                out.write(new byte[size]);
                out.flush();
            }
            assertTrue(all.await(20, TimeUnit.SECONDS), "every byte arrived");
        } finally {
            server.close().sync();
        }
        return seen;
    }
}
