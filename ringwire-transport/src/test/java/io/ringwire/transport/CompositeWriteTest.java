package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flushed {@link CompositeByteBuf} is written whole, whatever its number of components (one gathered write takes
 * at most 1,024 iovecs; a composite with more goes out in several) and whether its components are direct or on the
 * heap; buffers that lie one after the other in memory (the frames a decoder slices from one receive) share an
 * iovec. The reader is a plain JDK socket, so only Ringwire's write path is under test.
 */
class CompositeWriteTest extends OneLoopTestBase {
    @ParameterizedTest(name = "{0} components, direct={1}, mixed={2}")
    @Timeout(value = 30, unit = TimeUnit.SECONDS) // before the fix, a 5-component composite was never written
    @CsvSource({
        "1, true, false", "3, true, false", "4, true, false", "5, true, false", "6, true, false",
        "16, true, false", "100, true, false", "1024, true, false", "1025, true, false", "3000, true, false",
        "5, false, false", "1024, false, false", "7, true, true", "1024, true, true"})
    void shouldWriteEveryComponent(int components, boolean direct, boolean mixed) throws Exception {
        ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        CompositeByteBuf composite = direct && !mixed ? alloc.compositeDirectBuffer(components)
            : alloc.compositeHeapBuffer(components);
        int total = 0;
        for (int i = 0; i < components; i++) {
            int size = 1 + (i * 37) % 500; // components of different sizes
            boolean thisDirect = mixed ? i % 2 == 0 : direct;
            ByteBuf part = thisDirect ? alloc.directBuffer(size) : alloc.heapBuffer(size);
            byte[] bytes = new byte[size];
            for (int k = 0; k < size; k++) {
                bytes[k] = (byte) ((total + k) ^ i);
            }
            part.writeBytes(bytes); // one access per component: the suite runs the leak detector at PARANOID
            composite.addComponent(true, part);
            total += size;
        }
        byte[] expected = new byte[total];
        composite.getBytes(0, expected);
        assertTrue(composite.numComponents() == components || components > 16,
            "Netty may consolidate past maxNumComponents; the test still checks every byte");

        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = connect(listener);
            try (Socket peer = listener.accept()) {
                peer.setSoTimeout(20_000);
                ch.writeAndFlush(composite).sync();
                InputStream in = peer.getInputStream();
                byte[] got = in.readNBytes(total);
                assertArrayEquals(expected, got);
            } finally {
                ch.close().sync();
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void adjacentSlicesOfOneBufferShareAnIovec() throws Exception {
        ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        ByteBuf whole = alloc.directBuffer(512 * 128);
        for (int i = 0; i < 512 * 128; i++) {
            whole.writeByte(i * 7 + (i >> 8));
        }
        ByteBuf other = alloc.directBuffer(100).writeBytes(new byte[100]).setByte(0, 42);
        byte[] expected = new byte[512 * 128 + 100];
        whole.getBytes(0, expected, 0, 256 * 128);
        other.getBytes(0, expected, 256 * 128, 100);
        whole.getBytes(256 * 128, expected, 256 * 128 + 100, 256 * 128);

        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = connect(listener);
            try (Socket peer = listener.accept()) {
                peer.setSoTimeout(20_000);
                RingwireCounters counters = ch.eventLoop().submit(() -> RingwireCounters.of(ch.eventLoop())).get();
                long[] before = ch.eventLoop().submit(() -> new long[] {counters.writes(), counters.writeIovecs()})
                    .get();
                // 512 slices of 128 B, one after the other, with another buffer between the 256th and the 257th
                ch.eventLoop().submit(() -> {
                    for (int i = 0; i < 512; i++) {
                        if (i == 256) {
                            ch.write(other.retainedDuplicate());
                        }
                        ch.write(whole.retainedSlice(i * 128, 128));
                    }
                    ch.flush();
                }).sync();
                byte[] got = peer.getInputStream().readNBytes(expected.length);
                assertArrayEquals(expected, got);
                long[] after = ch.eventLoop().submit(() -> new long[] {counters.writes(), counters.writeIovecs()})
                    .get();
                long writes = after[0] - before[0];
                long iovecs = after[1] - before[1];
                // three runs of adjacent bytes (one per write, if the socket took them in parts): not 513 iovecs
                assertTrue(writes >= 1 && iovecs <= 3 * writes, () -> writes + " writes, " + iovecs + " iovecs");
            } finally {
                ch.close().sync();
            }
        } finally {
            whole.release(); // on every path: the writes release the views they were given
            other.release();
        }
    }

    /** @return a Ringwire client connected to {@code listener}, whose peer the test reads with plain JDK I/O */
    private static Channel connect(ServerSocket listener) throws InterruptedException {
        return new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter())
            .connect(listener.getLocalSocketAddress()).sync().channel();
    }
}
