package io.ringwire.transport;

import io.netty.channel.DefaultFileRegion;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.Libc;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;

/**
 * The file descriptor behind a {@link DefaultFileRegion}, for sendfile(2). Netty gives no public way to it: a region
 * made from a {@link File} is opened here by its path (as the region would open it itself, lazily); one made from a
 * {@link FileChannel} needs the JDK's private fields, reachable only when the application opens them
 * ({@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED}). Without a
 * descriptor the region is copied through user space instead, which works for every region.
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
            logger.info("A DefaultFileRegion made from a FileChannel is copied through user space: the JDK keeps "
                + "its descriptor private. Make regions from a File, or run with --add-opens "
                + "java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED, to send it with "
                + "sendfile(2). Said once.");
        }
        return null;
    }

    /**
     * Reads the next bytes of a DefaultFileRegion straight into {@code dst} with a positional read of its own
     * FileChannel (no heap buffer in between, as its transferTo to an arbitrary channel would use), and records them
     * as transferred.
     *
     * @return bytes read, or -1 if the region's channel cannot be reached (use its transferTo instead)
     * @throws IOException if the read fails, or the file ends before the region does
     */
    static int read(DefaultFileRegion region, java.nio.ByteBuffer dst) throws IOException {
        if (CHANNEL == null || TRANSFERRED == null) {
            return -1;
        }
        FileChannel channel;
        try {
            region.open();
            channel = (FileChannel) CHANNEL.get(region);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
        long done = region.transferred();
        int n = channel.read(dst, region.position() + done);
        if (n <= 0) {
            throw new IOException("the file ended before the region's " + region.count() + " bytes (at "
                + (region.position() + done) + "): " + region);
        }
        transferred(region, done + n);
        return n;
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
