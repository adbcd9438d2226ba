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
 * message holds as much pooled memory as it has bytes while it is in flight, not the guess's 2 KiB.
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
