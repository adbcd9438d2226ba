package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        long copiedBefore = group.next().submit(counters::fileRegionCopiedBytes).get();
        long fdsBefore = TrackingEcho.openFds();
        int offset = 1000;
        Object[] r = serve(ch -> new DefaultFileRegion(f, offset, SIZE - offset), SIZE - offset);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(Arrays.copyOfRange(content, offset, SIZE), (byte[]) r[0], "every byte, from the offset");
        assertEquals(SIZE - offset, group.next().submit(counters::sendfileBytes).get() - sendfileBefore,
            "all of it by sendfile");
        assertEquals(0, group.next().submit(counters::fileRegionCopiedBytes).get() - copiedBefore, "none copied");
        assertEquals(fdsBefore, TrackingEcho.openFds(), "the file's descriptor and the sockets were closed");
    }

    @Test
    void aRegionMadeFromAFileChannelIsCopiedInPieces() throws Exception {
        byte[] content = random(SIZE / 4);
        File f = file(content);
        RingwireCounters counters = counters();
        long copiedBefore = group.next().submit(counters::fileRegionCopiedBytes).get();
        Object[] r = serve(ch -> {
            try {
                return new DefaultFileRegion(new RandomAccessFile(f, "r").getChannel(), 0, content.length);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, content.length);
        assertTrue(((ChannelFuture) r[1]).isSuccess(), () -> String.valueOf(((ChannelFuture) r[1]).cause()));
        assertArrayEquals(content, (byte[]) r[0]);
        // (with --add-opens java.base/sun.nio.ch and java.base/java.io it would have gone with sendfile)
        long copied = group.next().submit(counters::fileRegionCopiedBytes).get() - copiedBefore;
        assertTrue(copied == 0 || copied == content.length, "copied " + copied);
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
