package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.ringwire.uring.Errno;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A stream channel's FileRegion writes: a {@link DefaultFileRegion} whose file descriptor can be had goes with
 * sendfile(2) on the loop; one made from a FileChannel without it is mapped and sent from the mapping; any other region
 * is copied through its own {@code transferTo} into a buffer and sent from there, one piece at a time
 * ({@link FileRegionFiles} finds the file). Made at the channel's first FileRegion: most connections never send one,
 * and an idle connection should not carry its fields.
 */
final class FileRegionWriter {
    /** Bytes of a FileRegion read into one buffer at a time, and sent from there. */
    static final int FILE_CHUNK = 64 * 1024;
    /** Bytes of a FileRegion made from a FileChannel mapped at a time. */
    static final long FILE_MAP_WINDOW = 4L * 1024 * 1024;

    private final AbstractRingwireStreamChannel channel;
    /** Bytes of the FileRegion being written, copied out of it (or mapped) and not yet sent; the channel owns them. */
    private ByteBuf chunk;
    /** The DefaultFileRegion being sent with sendfile(2), the file's fd (-1: copy it instead), who closes it. */
    private DefaultFileRegion sendfileRegion;
    private int sendfileFd = -1;
    private boolean sendfileOwnsFd;
    /** sendfile's native off_t, made on first use. */
    private MemorySegment sendfileOffset;

    FileRegionWriter(AbstractRingwireStreamChannel channel) {
        this.channel = channel;
    }

    /** @return whether a piece of a region is being sent (the write in flight is a SEND of it) */
    boolean hasChunk() {
        return chunk != null;
    }

    /** The piece being sent goes back to its pool (a mapping is unmapped). */
    void releaseChunk() {
        ByteBuf c = chunk;
        if (c != null) {
            chunk = null;
            c.release();
        }
    }

    /** Closes the file sendfile reads from, if it is ours, and forgets the region. */
    void closeSendfileFd() {
        if (sendfileFd >= 0 && sendfileOwnsFd) {
            Libc.close(sendfileFd);
        }
        sendfileFd = -1;
        sendfileRegion = null;
    }

    /**
     * The channel closed.
     *
     * @param writeInFlight whether a write is in flight: a piece the kernel still reads is released by its completion
     */
    void closed(boolean writeInFlight) {
        if (!writeInFlight) {
            releaseChunk();
        }
        closeSendfileFd();
    }

    /**
     * A sink for {@link FileRegion#transferTo}: takes bytes into {@code chunk} up to its capacity, then takes no
     * more (which ends the transfer).
     */
    private static final class ChunkSink implements java.nio.channels.WritableByteChannel {
        private final ByteBuf chunk;

        ChunkSink(ByteBuf chunk) {
            this.chunk = chunk;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), chunk.writableBytes());
            int limit = src.limit();
            src.limit(src.position() + n);
            chunk.writeBytes(src);
            src.limit(limit);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /**
     * Sends the next piece of a FileRegion: up to {@link #FILE_CHUNK} bytes copied from it into a buffer (through
     * its own {@code transferTo}, so every kind of FileRegion works), then one SEND from there. The SQE is reserved.
     */
    void write(RingwireIoRegistration r, ChannelOutboundBuffer in, FileRegion region) {
        AbstractRingwireStreamChannel ch = channel;
        ByteBuf c = chunk;
        // sendfile(2) takes the socket's fd: a direct descriptor sends the file from a mapping instead
        if (c == null && !ch.isDirectDescriptor() && region instanceof DefaultFileRegion d && sendFile(r, in, d)) {
            return;
        }
        if (c == null) {
            long left = region.count() - region.transferred();
            if (left <= 0) {
                in.remove();
                if (!in.isEmpty()) {
                    ch.doWrite(in);
                }
                return;
            }
            boolean mapped;
            try {
                // a DefaultFileRegion sendfile could not take (made from a FileChannel): mapped, sent from
                // the page cache; any other region copied through its own transferTo
                c = region instanceof DefaultFileRegion d ? FileRegionFiles.map(d, FILE_MAP_WINDOW,
                    ch.eventLoop()) : null;
                mapped = c != null;
                if (!mapped) {
                    c = ch.config.getAllocator().directBuffer((int) Math.min(left, FILE_CHUNK));
                    region.transferTo(new ChunkSink(c), region.transferred());
                }
            } catch (Throwable t) {
                if (c != null) {
                    c.release();
                }
                in.remove(t); // e.g. the file is shorter than the region's count
                if (!in.isEmpty()) {
                    ch.doWrite(in);
                }
                return;
            }
            if (!c.isReadable()) {
                c.release();
                r.retryNextIteration(); // the region gave nothing now: ask again, without spinning
                return;
            }
            chunk = c;
            if (mapped) {
                r.handler().counters().fileRegionMappedBytes += c.readableBytes();
            } else {
                r.handler().counters().fileRegionCopiedBytes += c.readableBytes();
            }
        }
        ch.socket.nameSlotOrFd(r, r.sq().prepSend(ch.fd, AbstractRingwireChannel.nativeAddress(c, c.readerIndex(),
            c.readableBytes()), c.readableBytes(), SocketConstants.MSG_NOSIGNAL, r.nextUserData(IORING_OP_SEND, 0)));
        ch.startedWrite(IORING_OP_SEND);
        RingwireCounters counters = r.handler().counters();
        counters.writes++;
        counters.writeIovecs++;
    }

    /**
     * A DefaultFileRegion whose file descriptor can be had goes with sendfile(2) on the loop: the file's pages go
     * to the socket inside the kernel, as with Netty's epoll transport. Not io_uring's SPLICE: the kernel always
     * hands that to an io-wq worker thread (REQ_F_FORCE_ASYNC), the punting Ringwire avoids. When the socket is
     * full, one POLL_ADD for POLLOUT waits for room.
     *
     * @return false if the region has to be copied instead (no descriptor, or a file sendfile cannot read)
     */
    private boolean sendFile(RingwireIoRegistration r, ChannelOutboundBuffer in, DefaultFileRegion region) {
        AbstractRingwireStreamChannel ch = channel;
        if (region != sendfileRegion) {
            closeSendfileFd();
            sendfileRegion = region;
            int[] opened = FileRegionFiles.open(region);
            if (opened != null) {
                sendfileFd = opened[0];
                sendfileOwnsFd = opened[1] == 1;
            }
        }
        if (sendfileFd < 0) {
            return false;
        }
        long done = region.transferred();
        long left = region.count() - done;
        if (left <= 0) {
            sendfileFinished(in, null);
            return true;
        }
        if (sendfileOffset == null) {
            sendfileOffset = java.lang.foreign.Arena.ofAuto().allocate(JAVA_LONG);
        }
        sendfileOffset.set(JAVA_LONG, 0, region.position() + done);
        long n = Libc.sendfile(ch.fd, sendfileFd, sendfileOffset, Math.min(left, 1L << 30));
        RingwireCounters c = r.handler().counters();
        if (n > 0) {
            c.writes++;
            c.writeBytes += n;
            c.sendfileBytes += n;
            FileRegionFiles.transferred(region, done + n);
            in.progress(n);
            if (done + n >= region.count()) {
                sendfileFinished(in, null);
            } else {
                ch.doWrite(in); // more: the next call fills the socket or meets EAGAIN
            }
            return true;
        }
        if (n == -Errno.EAGAIN) {
            ch.armWritePoll(r); // (its SQE was reserved before this write began)
            return true;
        }
        if (n == -Errno.EINVAL || n == -Errno.ENOSYS || n == -Errno.EOPNOTSUPP) {
            closeSendfileFd(); // a file sendfile cannot read (e.g. O_DIRECT): copy the rest
            sendfileRegion = region;
            return false;
        }
        sendfileFinished(in, n == 0
            ? new IOException("the file ended before the region's " + region.count() + " bytes (at "
                + (region.position() + done) + "): " + region)
            : new NativeIoException("sendfile", (int) n));
        return true;
    }

    /** The region went out whole ({@code cause} null) or failed; the next message follows. */
    private void sendfileFinished(ChannelOutboundBuffer in, Throwable cause) {
        closeSendfileFd();
        if (cause == null) {
            in.remove();
        } else {
            in.remove(cause);
        }
        if (!in.isEmpty()) {
            channel.doWrite(in);
        }
    }

    /** {@code res} bytes of the current piece were sent. */
    void sent(ChannelOutboundBuffer in, int res) {
        ByteBuf c = chunk;
        c.skipBytes(res);
        if (in != null) {
            in.progress(res);
        }
        if (c.isReadable() && channel.isOpen()) {
            return; // a short send: the rest of the piece goes next
        }
        // sent whole; or the channel closed while the SEND was in flight (doClose left the piece to this
        // completion), and nothing sends the rest: the buffer goes back to its pool, a mapping is unmapped
        releaseChunk();
        if (in != null && in.current() instanceof FileRegion region && region.transferred() >= region.count()) {
            in.remove();
        }
    }
}
