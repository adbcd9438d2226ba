package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * shutdownOutput() while a large write is still in the kernel's hands, then close(), with a peer that reads nothing
 * until both have been called (the shape of Netty's io_uring fault of 2026, netty#17237: the output's shutdown released
 * the flushed buffers the kernel was still reading, and the close never completed). The write is bigger than the
 * socket buffers of both ends, of pooled 64 KiB chunks; right after the shutdown the loop takes buffers of the same
 * size from the same pool (one without thread caches, so a freed chunk is the next one handed out) and fills them
 * with 0xEE, so memory given back too early shows up in what the peer reads. What the peer reads must be the write's
 * first bytes, unchanged, then the EOF; the write's promise and the close end; the pool has nothing left allocated. As a client, and as an accepted connection; with fds, and with direct
 * descriptors in the {@code direct-descriptors} run.
 */
class ShutdownOutputWithWriteInFlightTest extends OneLoopTestBase {
    private static final int CHUNK = 64 * 1024;
    /** 32 MiB: more than loopback's socket buffers hold, however large they grow (tcp_wmem and tcp_rmem's maxima). */
    private static final int CHUNKS = 512;
    private static final byte[] FILL = new byte[CHUNK];
    /** What is written: every 4 bytes differ from every other 4 (an odd multiplier is a bijection of ints). */
    private static final byte[] PAYLOAD = new byte[CHUNKS * CHUNK];

    static {
        java.util.Arrays.fill(FILL, (byte) 0xEE);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(PAYLOAD);
        for (int offset = 0; offset < PAYLOAD.length; offset += 4) {
            b.putInt(offset * 0x9E3779B1 ^ 0x5bd1e995);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aClientsShutdownOutputWithAWriteInFlightKeepsItsBytesAndCloses() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, newAllocator())
                .handler(new ChannelInboundHandlerAdapter())
                .connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                writeShutdownCloseThenRead(ch, peer);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anAcceptedConnectionsShutdownOutputWithAWriteInFlightKeepsItsBytesAndCloses() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.ALLOCATOR, newAllocator())
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel());
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try (Socket peer = new Socket()) {
            peer.connect(server.localAddress());
            writeShutdownCloseThenRead(accepted.get(30, TimeUnit.SECONDS), peer);
        } finally {
            server.close().sync();
        }
    }

    private static void writeShutdownCloseThenRead(Channel ch, Socket peer) throws Exception {
        ByteBufAllocator alloc = ch.alloc();
        List<ByteBuf> reused = new ArrayList<>();
        ChannelFuture[] futures = new ChannelFuture[3]; // the write, the shutdown, the close
        try {
            ch.eventLoop().submit(() -> {
                CompositeByteBuf payload = alloc.compositeDirectBuffer(CHUNKS);
                for (int c = 0; c < CHUNKS; c++) {
                    ByteBuf chunk = alloc.directBuffer(CHUNK, CHUNK).writeBytes(PAYLOAD, c * CHUNK, CHUNK);
                    payload.addComponent(true, chunk);
                }
                futures[0] = ch.writeAndFlush(payload);
            }).get(60, TimeUnit.SECONDS);
            // once a SEND of the write is in the kernel's hands (the peer reads nothing yet, and 32 MiB do not fit in
            // the two ends' buffers: it stays there), in the same task: the output's shutdown, then the close
            boolean done = false;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!done && System.nanoTime() < until) {
                done = ch.eventLoop().submit(() -> {
                    if (!((AbstractRingwireChannel) ch).inFlight(AbstractRingwireChannel.WRITE)) {
                        return false;
                    }
                    futures[1] = ((SocketChannel) ch).shutdownOutput();
                    // memory the shutdown gave back too early is handed out again, and overwritten
                    for (int c = 0; c < CHUNKS; c++) {
                        reused.add(alloc.directBuffer(CHUNK, CHUNK).writeBytes(FILL));
                    }
                    futures[2] = ch.close();
                    return true;
                }).get(60, TimeUnit.SECONDS);
            }
            assertTrue(done, "a SEND of the write was in flight");

            long received = readAndCheck(peer.getInputStream());

            assertTrue(futures[2].await(30, TimeUnit.SECONDS), "the close completes");
            assertTrue(futures[0].await(30, TimeUnit.SECONDS), "the write's promise ends");
            if (futures[0].isSuccess()) {
                assertEquals((long) CHUNKS * CHUNK, received, "a write that succeeded reached the peer whole");
            } else {
                assertTrue(received < (long) CHUNKS * CHUNK, "a write that failed (" + futures[0].cause()
                    + ") left bytes unsent");
            }
            assertTrue(futures[1].await(30, TimeUnit.SECONDS), "the shutdown's promise ends");
            assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "the channel closes");
            assertTrue(ch.eventLoop().submit(() -> true).get(30, TimeUnit.SECONDS), "the loop still runs");
            ch.eventLoop().submit(() -> reused.forEach(ByteBuf::release)).get(30, TimeUnit.SECONDS);
            reused.clear();
            // (a released pooled buffer's refCnt says nothing: its object is recycled for the next allocation)
            PooledByteBufAllocatorMetric metric = ((PooledByteBufAllocator) alloc).metric();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (activeAllocations(metric) != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, activeAllocations(metric), "every written chunk is released once the kernel is done with "
                + "it; the peer read " + received + " bytes, the write "
                + (futures[0].isSuccess() ? "succeeded" : "failed: " + futures[0].cause()));
        } finally {
            ch.close();
            ch.eventLoop().submit(() -> reused.forEach(ByteBuf::release)).get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A pool of its own for the channel, without thread caches: a chunk released goes straight back to its arena,
     * where the next allocation of its size takes it, and the arena's count of live allocations says what is held.
     */
    private static PooledByteBufAllocator newAllocator() {
        return new PooledByteBufAllocator(true, 0, 1, 8192, 9, 0, 0, false);
    }

    private static long activeAllocations(PooledByteBufAllocatorMetric metric) {
        long n = 0;
        for (PoolArenaMetric arena : metric.directArenas()) {
            n += arena.numActiveAllocations();
        }
        return n;
    }

    /** Reads to the EOF, checking each byte against the pattern. @return the bytes read */
    private static long readAndCheck(InputStream in) throws IOException {
        byte[] buf = new byte[CHUNK];
        long position = 0;
        int n;
        while ((n = in.read(buf)) > 0) {
            for (int i = 0; i < n; i++) {
                long p = position + i;
                if (p >= PAYLOAD.length || buf[i] != PAYLOAD[(int) p]) {
                    fail("byte " + p + " of what the peer read is " + (buf[i] & 0xff) + ", not the written "
                        + (p < PAYLOAD.length ? PAYLOAD[(int) p] & 0xff : "(none)")
                        + ": the kernel read memory that had been given back");
                }
            }
            position += n;
        }
        return position;
    }

}
