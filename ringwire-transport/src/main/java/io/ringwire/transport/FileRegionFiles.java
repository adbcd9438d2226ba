package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.Libc;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;

/**
 * The file behind a {@link DefaultFileRegion}, for sending it without a copy through a buffer of ours. Netty gives no
 * public way to its descriptor: a region made from a {@link File} is opened here by its path (as the region would
 * open it itself, lazily) for sendfile(2); one made from a {@link FileChannel} needs the JDK's private fields,
 * reachable only when the application opens them ({@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens
 * java.base/java.io=ALL-UNNAMED}); without them its bytes are mapped into memory through the channel's public
 * {@code map} and sent from there ({@link #map}).
 */
final class FileRegionFiles {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(FileRegionFiles.class);
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;

    private static final Field FILE = field(DefaultFileRegion.class, "f");
    private static final Field CHANNEL = field(DefaultFileRegion.class, "file");
    private static final Field TRANSFERRED = field(DefaultFileRegion.class, "transferred");
    private static final Field CHANNEL_FD = field(classOrNull("sun.nio.ch.FileChannelImpl"), "fd");
    private static final Field FD_INT = field(java.io.FileDescriptor.class, "fd");
    private static volatile boolean toldAboutChannels;

    private FileRegionFiles() { }

    private static Class<?> classOrNull(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException | RuntimeException e) {
            return null;
        }
    }

    private static Field field(Class<?> c, String name) {
        if (c == null) {
            return null;
        }
        try {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // e.g. InaccessibleObjectException: the module is not opened to us
        }
    }

    /**
     * A descriptor to sendfile from.
     *
     * @param region the region
     * @return {fd, whether the caller owns (and closes) it}, or null if there is none to be had
     */
    static int[] open(DefaultFileRegion region) {
        try {
            File f = FILE == null ? null : (File) FILE.get(region);
            if (f != null) {
                int fd = Libc.open(f.getPath(), O_RDONLY | O_CLOEXEC);
                return fd < 0 ? null : new int[] {fd, 1}; // (the copying path then reports the error)
            }
            if (CHANNEL != null && CHANNEL_FD != null && FD_INT != null) {
                Object channel = CHANNEL.get(region);
                Object fd = channel == null ? null : CHANNEL_FD.get(channel);
                if (fd != null) {
                    return new int[] {FD_INT.getInt(fd), 0}; // the region's FileChannel keeps it
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            logger.debug("no file descriptor for {}", region, e);
            return null;
        }
        if (!toldAboutChannels) {
            toldAboutChannels = true;
            logger.info("A DefaultFileRegion made from a FileChannel is mapped into memory and sent from there, "
                + "which costs page faults and an unmap per 4 MiB: the JDK keeps its descriptor private. Make "
                + "regions from a File, or run with --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens "
                + "java.base/java.io=ALL-UNNAMED, to send it with sendfile(2). Said once.");
        }
        return null;
    }

    /**
     * Maps the next bytes of a DefaultFileRegion (at most {@code max}) read-only into memory, records them as
     * transferred, and returns them as a buffer that unmaps them when released: a send from it copies straight from
     * the page cache, without the read into a buffer of ours that a copy would cost. For a region made from a
     * FileChannel whose descriptor the JDK keeps private; public API only ({@link FileChannel#map(FileChannel.MapMode,
     * long, long, Arena)}).
     *
     * @param loop the event loop calling: the mapping belongs to it (a confined arena: unmapping a shared one costs a
     *             handshake with every thread)
     * @return the mapped bytes, or null if the region's channel cannot be reached (copy instead)
     * @throws IOException if mapping fails, or the file ends before the region does
     */
    static ByteBuf map(DefaultFileRegion region, long max, EventExecutor loop) throws IOException {
        if (CHANNEL == null || TRANSFERRED == null) {
            return null;
        }
        FileChannel channel;
        try {
            region.open();
            channel = (FileChannel) CHANNEL.get(region);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        long done = region.transferred();
        long at = region.position() + done;
        long n = Math.min(max, region.count() - done);
        long size = channel.size();
        if (at + n > size && (!fromFile(region) || at >= size)) {
            throw new IOException("the file ended before the region's " + region.count() + " bytes (at "
                + size + "): " + region);
        }
        // a region made from a File goes here only for a connection on a direct descriptor (sendfile takes an fd):
        // as with sendfile, what the file has goes out before the write fails at its end
        n = Math.min(n, size - at);
        Arena arena = Arena.ofConfined();
        ByteBuf chunk;
        try {
            chunk = new MappedChunk(channel.map(FileChannel.MapMode.READ_ONLY, at, n, arena), arena, loop);
        } catch (IOException | RuntimeException e) {
            arena.close(); // nothing mapped stays behind, and the region's progress is untouched
            throw e;
        }
        transferred(region, done + n);
        return chunk;
    }

    /**
     * Mapped file bytes as a ByteBuf the channel only sends from; releasing it unmaps them. The buffer is a
     * writable view (Netty's direct buffers refuse a read-only ByteBuffer) of memory mapped read-only: nothing here
     * writes to it.
     */
    private static final class MappedChunk extends UnpooledDirectByteBuf {
        private final Arena arena;
        private final EventExecutor loop;

        MappedChunk(MemorySegment mapped, Arena arena, EventExecutor loop) {
            super(UnpooledByteBufAllocator.DEFAULT, io.ringwire.uring.RawMemory.byteBuffer(mapped.address(),
                mapped.byteSize()), (int) mapped.byteSize());
            this.arena = arena;
            this.loop = loop;
            writerIndex((int) mapped.byteSize());
        }

        @Override
        protected void deallocate() {
            super.deallocate(); // a wrapped buffer: frees nothing itself
            if (loop.inEventLoop()) {
                arena.close();
                return;
            }
            try {
                loop.execute(arena::close); // released on another loop (the channel moved): unmapped on its own
            } catch (java.util.concurrent.RejectedExecutionException e) {
                logger.debug("a file mapping stays until exit: its loop {} has ended", loop);
            }
        }
    }

    /** @return whether the region was made from a {@link File} (not a FileChannel) */
    private static boolean fromFile(DefaultFileRegion region) {
        try {
            return FILE != null && FILE.get(region) != null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Records progress in the region itself, as its own transferTo would, where Netty lets us. */
    static void transferred(DefaultFileRegion region, long transferred) {
        if (TRANSFERRED != null) {
            try {
                TRANSFERRED.setLong(region, transferred);
            } catch (ReflectiveOperationException | RuntimeException e) {
                logger.debug("cannot record progress in {}", region, e);
            }
        }
    }
}
