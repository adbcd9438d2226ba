package io.ringwire.examples;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.FixedLengthFrameDecoder;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A file server for the lab's file-serving workload: each request is 9 bytes, the file size wanted (a big-endian
 * long) and how to send it (0: a {@link DefaultFileRegion} made from a {@code File}, 1: one made from a
 * {@code FileChannel}); the answer is the file, whose byte {@code i} is {@link #byteAt(long)}. Files are made on first
 * request, one per size, in the temporary directory, and removed when the process ends.
 */
public final class FileServer {
    /** Bytes of a request. */
    public static final int REQUEST = 9;
    private static final Map<Long, File> FILES = new ConcurrentHashMap<>();

    private FileServer() { }

    /** @return byte {@code i} of every served file */
    public static byte byteAt(long i) {
        return (byte) (i * 31 + 7);
    }

    /**
     * @param size the file's length
     * @return the file of that size, made now if it is the first request for it
     */
    public static File file(long size) {
        return FILES.computeIfAbsent(size, s -> {
            try {
                Path p = Files.createTempFile("ringwire-lab-file-" + s + "-", ".bin");
                p.toFile().deleteOnExit();
                byte[] chunk = new byte[64 * 1024];
                try (var out = Files.newOutputStream(p)) {
                    for (long at = 0; at < s; at += chunk.length) {
                        int n = (int) Math.min(chunk.length, s - at);
                        for (int i = 0; i < n; i++) {
                            chunk[i] = byteAt(at + i);
                        }
                        out.write(chunk, 0, n);
                    }
                }
                return p.toFile();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * Starts the file server on one of the Netty-based transports.
     *
     * @param transport {@code ringwire}, {@code netty-epoll}, {@code netty-io_uring} or {@code netty-nio}
     * @param address   where to listen
     * @param threads   event-loop threads
     * @return the bound server channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        return Transports.startServer(transport, address, threads, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new FixedLengthFrameDecoder(REQUEST), new Handler());
            }
        });
    }

    /** Answers each request with the file's region. */
    static final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf request) throws IOException {
            long size = request.readLong();
            boolean fromChannel = request.readByte() == 1;
            File f = file(size);
            ctx.write(fromChannel ? new DefaultFileRegion(new RandomAccessFile(f, "r").getChannel(), 0, size)
                : new DefaultFileRegion(f, 0, size));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
