package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FileRegions on a TCP connection: a DefaultFileRegion made from a File goes with sendfile(2) (no copy through user
 * space, waiting on POLLOUT when the socket is full); one made from a FileChannel, whose descriptor the JDK keeps
 * private, is copied out in pieces; a file shorter than the region fails the write, and nothing leaks.
 */
class FileRegionTest extends OneLoopTestBase {
    private static final int SIZE = 8 << 20; // several times what loopback's socket buffers hold: sendfile meets EAGAIN

    @TempDir
    Path dir;

    private File file(byte[] content) throws IOException {
        Path p = dir.resolve("data-" + content.length);
        Files.write(p, content);
        return p.toFile();
    }

    /**
     * Serves one connection: writes the region {@code make} returns, then closes; a slow reader takes it.
     *
     * @return what the reader got, and the write's future
     */
    private Object[] serve(Function<Channel, FileRegion> make, int expected) throws Exception {
        CompletableFuture<ChannelFuture> written = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    ChannelFuture f = ctx.writeAndFlush(make.apply(ctx.channel()));
                    f.addListener(x -> ctx.close());
                    written.complete(f);
                }
            }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024);
            s.connect(server.localAddress());
            s.setSoTimeout(20_000);
            byte[] got = new byte[expected];
            InputStream in = s.getInputStream();
            int n = 0;
            byte[] slow = new byte[16 * 1024];
            while (n < expected) {
                int r = in.read(slow, 0, Math.min(slow.length, expected - n));
                if (r < 0) {
                    break;
                }
                System.arraycopy(slow, 0, got, n, r);
                n += r;
            }
            ChannelFuture f = written.get(20, TimeUnit.SECONDS);
            assertTrue(f.await(20, TimeUnit.SECONDS), "the write finished");
            assertTrue(f.channel().closeFuture().await(20, TimeUnit.SECONDS), "the connection closed after it");
            return new Object[] {n == expected ? got : Arrays.copyOf(got, n), f};
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    /** The loop's counters (its handler, and so its counters, exist once its thread has started). */
    private static RingwireCounters counters() throws InterruptedException {
        group.next().submit(() -> { }).sync();
        return RingwireCounters.of(group.next());
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        new Random(42).nextBytes(b);
        return b;
    }

    @Test
    void aRegionMadeFromAFileGoesWithSendfile() throws Exception {
        byte[] content = random(SIZE);
        File f = file(content);
        RingwireCounters counters = counters();
        long sendfileBefore = group.next().submit(counters::sendfileBytes).get();
        long mappedBefore = group.next().submit(counters::fileRegionMappedBytes).get();
        long copiedBefore = group.next().submit(counters::fileRegionCopiedBytes).get();
        long fdsBefore = TrackingEcho.openFds();
        int offset = 1000;
        Object[] r = serve(ch -> new DefaultFileRegion(f, offset, SIZE - offset), SIZE - offset);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(Arrays.copyOfRange(content, offset, SIZE), (byte[]) r[0], "every byte, from the offset");
        // sendfile(2) takes the socket's fd: a connection on a direct descriptor sends from a mapping of the file
        boolean direct = RingwireIoHandlerConfig.builder().build().directDescriptors()
            && io.ringwire.uring.IoUringProbe.get().isDirectDescriptorsSupported();
        assertEquals(SIZE - offset, group.next().submit(direct ? counters::fileRegionMappedBytes
            : counters::sendfileBytes).get() - (direct ? mappedBefore : sendfileBefore), direct
            ? "all of it from a mapping" : "all of it by sendfile");
        assertEquals(0, group.next().submit(counters::fileRegionCopiedBytes).get() - copiedBefore, "none copied");
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore),
            "the file's descriptor and the sockets were closed");
    }

    @Test
    void aRegionAfterAnEmptyBufferInTheSameFlushIsWritten() throws Exception {
        // an HTTP encoder writes empty buffers: with nothing readable to gather, the region after them still goes
        // (it used to wait for the next flush)
        byte[] content = random(SIZE);
        File f = file(content);
        Object[] r = serve(ch -> {
            ch.write(Unpooled.EMPTY_BUFFER);
            return new DefaultFileRegion(f, 0, SIZE);
        }, SIZE);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(content, (byte[]) r[0], "every byte");
    }

    @Test
    void aRegionMadeFromAFileChannelIsMappedNotCopied() throws Exception {
        // over two 4 MiB windows, from an offset that is not a page's
        byte[] content = random(9 * 1024 * 1024 + 4321);
        File f = file(content);
        RingwireCounters counters = counters();
        long copiedBefore = group.next().submit(counters::fileRegionCopiedBytes).get();
        long mappedBefore = group.next().submit(counters::fileRegionMappedBytes).get();
        long sendfileBefore = group.next().submit(counters::sendfileBytes).get();
        long fdsBefore = TrackingEcho.openFds();
        int offset = 1234;
        RandomAccessFile[] file = new RandomAccessFile[1];
        Object[] r = serve(ch -> {
            try {
                file[0] = new RandomAccessFile(f, "r");
                return new DefaultFileRegion(file[0].getChannel(), offset, content.length - offset);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, content.length - offset);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(Arrays.copyOfRange(content, offset, content.length), (byte[]) r[0]);
        assertEquals(0, group.next().submit(counters::fileRegionCopiedBytes).get() - copiedBefore, "none copied");
        // mapped; with --add-opens java.base/sun.nio.ch and java.base/java.io it goes with sendfile instead
        assertEquals(content.length - offset, group.next().submit(counters::fileRegionMappedBytes).get() - mappedBefore
            + group.next().submit(counters::sendfileBytes).get() - sendfileBefore);
        // the region released its channel when done: no descriptor and no mapping left behind
        assertFalse(file[0].getChannel().isOpen(), "the region closed its channel");
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "no descriptor left");
        assertEquals(0, mappings(f), "no mapping of the file left");
    }

    /**
     * A sparse 3 GiB file with 1 MiB of data across its 2 GiB mark: a region of it, from a File (sendfile, 64-bit
     * offset) and from a FileChannel (mapped at an offset past 2 GiB), sends those bytes exactly.
     */
    @Test
    void aRegionAcrossTwoGibibytesOfABigFile() throws Exception {
        long at = (2L << 30) - 256 * 1024;
        byte[] content = random(1 << 20);
        File f = dir.resolve("big").toFile();
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
            raf.setLength(3L << 30); // sparse: no 3 GiB written
            raf.seek(at);
            raf.write(content);
        }
        Object[] bySendfile = serve(ch -> new DefaultFileRegion(f, at, content.length), content.length);
        assertTrue(((ChannelFuture) bySendfile[1]).isSuccess(),
            () -> String.valueOf(((ChannelFuture) bySendfile[1]).cause()));
        assertArrayEquals(content, (byte[]) bySendfile[0], "from a File: the bytes at the 2 GiB mark");
        RandomAccessFile[] file = new RandomAccessFile[1];
        Object[] byMapping = serve(ch -> {
            try {
                file[0] = new RandomAccessFile(f, "r");
                return new DefaultFileRegion(file[0].getChannel(), at, content.length);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, content.length);
        assertTrue(((ChannelFuture) byMapping[1]).isSuccess(),
            () -> String.valueOf(((ChannelFuture) byMapping[1]).cause()));
        assertArrayEquals(content, (byte[]) byMapping[0], "from a FileChannel: the bytes at the 2 GiB mark");
    }

    /** A FileChannel opened with O_DIRECT (netty issue 15022): its region is sent whole all the same. */
    @Test
    void aFileChannelOpenedWithODirect() throws Exception {
        byte[] content = random(3 * 4096 + 100);
        File f = file(content);
        java.nio.channels.FileChannel direct;
        try {
            direct = java.nio.channels.FileChannel.open(f.toPath(), java.nio.file.StandardOpenOption.READ,
                com.sun.nio.file.ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            org.junit.jupiter.api.Assumptions.abort("the temporary directory's file system refuses O_DIRECT: " + e);
            return;
        }
        Object[] r = serve(ch -> new DefaultFileRegion(direct, 0, content.length), content.length);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(content, (byte[]) r[0]);
        assertFalse(direct.isOpen(), "the region closed its channel");
    }

    @Test
    void aFileChannelShorterThanTheRegionFailsTheWrite() throws Exception {
        byte[] content = random(100_000);
        File f = file(content);
        Object[] r = serve(ch -> {
            try {
                return new DefaultFileRegion(new RandomAccessFile(f, "r").getChannel(), 0, 200_000);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, 0);
        ChannelFuture write = (ChannelFuture) r[1];
        assertTrue(write.cause() instanceof IOException && write.cause().getMessage().contains("ended"),
            String.valueOf(write.cause()));
    }

    /**
     * A region other than a DefaultFileRegion goes through a buffer of the channel's allocator, 64 KiB at a time;
     * when the connection closes while a short SEND of that buffer is in flight, the SEND's completion comes after
     * the close and releases the buffer, with nothing left to send the rest.
     */
    @Test
    void aCopiedChunkIsReleasedWhenItsShortSendCompletesAfterTheClose() throws Exception {
        CountingAllocator alloc = new CountingAllocator();
        BytesRegion region = new BytesRegion(random(1 << 20));
        closeWhileAShortSendIsInFlight(alloc, region);
        assertEquals(0, alloc.heldAfterWaiting(), "the chunk and every other buffer of the channel were released");
        assertEquals(0, region.refCnt(), "the region was released");
    }

    /**
     * A DefaultFileRegion sent from a mapping of its file (one made from a FileChannel, or any on a direct
     * descriptor), 4 MiB at a time: when the connection closes while a short SEND of the mapping is in flight, the
     * SEND's completion comes after the close and unmaps it.
     */
    @Test
    void aMappedChunkIsUnmappedWhenItsShortSendCompletesAfterTheClose() throws Exception {
        byte[] content = random(SIZE);
        File f = file(content);
        RingwireCounters counters = counters();
        long mappedBefore = group.next().submit(counters::fileRegionMappedBytes).get();
        try (RandomAccessFile file = new RandomAccessFile(f, "r")) {
            DefaultFileRegion region = new DefaultFileRegion(file.getChannel(), 0, content.length);
            closeWhileAShortSendIsInFlight(new CountingAllocator(), region);
            assertTrue(group.next().submit(counters::fileRegionMappedBytes).get() > mappedBefore,
                "the region was sent from a mapping");
            for (int i = 0; i < 600 && mappings(f) > 0; i++) {
                Thread.sleep(50); // the count decides; the time only bounds the wait
            }
            assertEquals(0, mappings(f), "no mapping of the file left");
            assertEquals(0, region.refCnt(), "the region was released");
        }
    }

    /**
     * Connects a client to a peer that does not read, and has it write {@code region} until a SEND of its chunk is
     * short and the next one waits for room. With the loop held, the peer sends the client a byte, then reads: the
     * client's receive completes before its waiting SEND, which sends a part of the rest (short again), in the same
     * batch of completions. The client's handler closes the connection on that byte, so the SEND's completion comes
     * after the close.
     */
    private static void closeWhileAShortSendIsInFlight(CountingAllocator alloc, FileRegion region) throws Exception {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReceiveBufferSize(4096); // a small window: the client's first SEND is short
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            CountDownLatch byteCame = new CountDownLatch(1);
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, alloc)
                .option(ChannelOption.SO_SNDBUF, 4096)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        byteCame.countDown();
                        ctx.close();
                    }
                }).connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                RingwireCounters counters = counters();
                long writesBefore = group.next().submit(counters::writes).get();
                ChannelFuture written = ch.writeAndFlush(region);
                // the first SEND was short, and the second waits in the kernel for room (a task after the
                // iteration that prepared it runs once the enter has submitted it)
                for (int i = 0; i < 600 && group.next().submit(counters::writes).get() < writesBefore + 2; i++) {
                    Thread.sleep(50);
                }
                assertTrue(group.next().submit(counters::writes).get() >= writesBefore + 2,
                    "a short SEND, then one waiting for room");
                assertFalse(written.isDone(), "the region is not sent yet");
                CountDownLatch release = hold(ch.eventLoop());
                try {
                    peer.getOutputStream().write(1);
                    peer.getOutputStream().flush();
                    InputStream in = peer.getInputStream();
                    byte[] b = new byte[64 * 1024];
                    for (int i = 0; i < 5 && in.available() > 0; i++) {
                        in.read(b, 0, Math.min(b.length, in.available())); // room for the waiting SEND
                    }
                } finally {
                    release.countDown();
                }
                assertTrue(byteCame.await(30, TimeUnit.SECONDS), "the byte came");
                assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "the handler closed the connection");
                assertTrue(written.await(30, TimeUnit.SECONDS), "the write ended");
                assertFalse(written.isSuccess(), "the region was not sent whole");
            } finally {
                ch.close().sync();
            }
        }
    }

    /** A FileRegion that is not a DefaultFileRegion: bytes in memory, which the channel copies out. */
    private static final class BytesRegion extends AbstractReferenceCounted implements FileRegion {
        private final byte[] bytes;
        private long transferred;

        BytesRegion(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        @Deprecated
        public long transfered() {
            return transferred;
        }

        @Override
        public long transferred() {
            return transferred;
        }

        @Override
        public long count() {
            return bytes.length;
        }

        @Override
        public long transferTo(WritableByteChannel target, long position) throws IOException {
            int n = target.write(ByteBuffer.wrap(bytes, (int) position, bytes.length - (int) position));
            transferred += n;
            return n;
        }

        @Override
        public FileRegion retain() {
            super.retain();
            return this;
        }

        @Override
        public FileRegion retain(int increment) {
            super.retain(increment);
            return this;
        }

        @Override
        public FileRegion touch() {
            return this;
        }

        @Override
        public FileRegion touch(Object hint) {
            return this;
        }

        @Override
        protected void deallocate() {
        }
    }

    /** @return how many of this process's memory mappings are of {@code f} */
    private static long mappings(File f) throws IOException {
        String path = f.getCanonicalPath();
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.endsWith(path)).count();
        }
    }

    @Test
    void aFileShorterThanTheRegionFailsTheWrite() throws Exception {
        byte[] content = random(100_000);
        File f = file(content);
        Object[] r = serve(ch -> new DefaultFileRegion(f, 0, 200_000), 100_000);
        ChannelFuture write = (ChannelFuture) r[1];
        assertTrue(write.cause() instanceof IOException, String.valueOf(write.cause()));
        assertArrayEquals(content, (byte[]) r[0], "what the file had was sent");
    }
}
