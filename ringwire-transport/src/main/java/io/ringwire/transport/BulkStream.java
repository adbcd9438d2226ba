package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.ringwire.uring.BufferRing;

import static io.ringwire.uring.IoUringConstants.IORING_CQE_F_SOCK_NONEMPTY;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECV;

/**
 * Whether a stream connection is a bulk stream, and a bulk stream's inline writes.
 *
 * <p>When two multishot receives in a row fill a whole ring buffer and the kernel says more is waiting
 * ({@code IORING_CQE_F_SOCK_NONEMPTY}), the stream is bulk: the multishot RECV is cancelled and, once its last
 * completion is in, single-shot RECVs go straight into a buffer from the channel's allocator (sized by its
 * {@code RecvByteBufAllocator}, up to 64 KiB by default): no copy, one completion per large read, and each CQE's bytes
 * are where that SQE said, whatever order other completions come in. Four reads in a row that a ring buffer could
 * have held end it, so an idle connection pins no buffer. Never both at once: the own-buffer RECV is armed only after
 * the multishot one has ended, which keeps the byte order. Off with {@link RingwireIoHandlerConfig#directReceive()}.
 *
 * <p>A bulk stream's flush from channelReadComplete is written at once with one non-blocking sendmsg(2) (a synchronous
 * call on a direct descriptor) instead of a SEND in the loop's next enter. Its buffers then leave the outbound buffer
 * while they are still in the CPU's cache: a batch of completions that brings 64 KiB for each of many connections (the
 * lab's rpc-backend) otherwise removes each connection's hundreds of frames an iteration later, after the other
 * connections' receives have pushed them out of it. One system call per large receive, where the SEND would have cost
 * the kernel the same work in the enter ({@link RingwireCounters#inlineWrites()}).
 */
final class BulkStream {
    private final AbstractRingwireStreamChannel channel;

    /** Bulk: own-buffer receives, straight into allocator buffers, one single-shot RECV at a time. */
    boolean on;
    /** Consecutive multishot receives that filled a ring buffer with more waiting, and own-buffer ones that did not. */
    private int fullRecvs;
    private int smallRecvs;

    /** Bytes an inline write sent whose buffers are still being removed from the outbound buffer. */
    long inlineUnsettled;
    /** The last frame an inline write sent, until the next receive has gone up ({@link #holdAfterInlineWrite}). */
    private ByteBuf heldAfterInlineWrite;

    BulkStream(AbstractRingwireStreamChannel channel) {
        this.channel = channel;
    }

    /**
     * A multishot receive that filled its ring buffer while more waited in the socket, twice in a row: this is a
     * bulk stream, and the multishot RECV is cancelled so that own-buffer receives take over when it has ended.
     */
    void watch(RingwireIoRegistration r, int res, int flags, int bufferSize, boolean multishot) {
        if (on || !r.handler().config().directReceive()) {
            return;
        }
        if (res < bufferSize || (flags & IORING_CQE_F_SOCK_NONEMPTY) == 0) {
            fullRecvs = 0;
            return;
        }
        if (++fullRecvs >= 2) {
            on = true;
            fullRecvs = 0;
            smallRecvs = 0;
            if (multishot && channel.inFlight(AbstractRingwireChannel.READ_MULTISHOT)) {
                channel.cancel(r, IORING_OP_RECV, AbstractRingwireChannel.MULTISHOT);
            } // a single-shot one has ended: the next arm is into a buffer of its own
        }
    }

    /** An own-buffer receive of {@code res} bytes went up: a stream that slows down goes back to the shared ring. */
    void ownBufferReceived(int res, boolean moreWaiting, BufferRing ring) {
        boolean small = ring != null && res < ring.bufferSize() && !moreWaiting;
        smallRecvs = small ? smallRecvs + 1 : 0;
        if (smallRecvs >= 4) {
            on = false;
            smallRecvs = 0;
        }
    }

    /**
     * Writes what the loop's {@link WriteGather} holds at once, from channelReadComplete.
     *
     * @return whether nothing is left to send (all written, or the channel closed meanwhile)
     */
    boolean writeInline(RingwireIoHandler h, ChannelOutboundBuffer in, int iovecs) {
        int res = channel.socket.sendNow(h, h.writeGather().msghdrSegment());
        if (res <= 0) {
            return false; // EAGAIN: a SEND waits for room; an error: the SEND reports it as any write's would
        }
        RingwireCounters c = h.counters();
        c.writes++;
        c.inlineWrites++;
        c.writeIovecs += iovecs;
        c.writeBytes += res;
        inlineUnsettled = res;
        settleInlineWrite(in);
        return in.isEmpty() || !channel.isOpen() || !channel.active || channel.isOutputShutdown();
    }

    /**
     * Removes the buffers an inline write sent, as {@link WriteGather#removeWritten} does, keeping the bytes still to
     * remove in {@link #inlineUnsettled}: a promise's listener that flushes in here gathers nothing until they are gone
     * (it would send them twice), and one that closes the channel settles the rest as written before the close fails
     * what was not (the same call, which this loop then finds done).
     */
    void settleInlineWrite(ChannelOutboundBuffer in) {
        while (inlineUnsettled > 0 && in.current() instanceof ByteBuf buf) {
            int readable = buf.readableBytes();
            if (readable <= inlineUnsettled) {
                inlineUnsettled -= readable;
                if (inlineUnsettled == 0) {
                    holdAfterInlineWrite(buf); // the last one sent (a partly sent one stays in the buffer)
                }
                in.progress(readable);
                in.remove();
            } else {
                buf.readerIndex(buf.readerIndex() + (int) inlineUnsettled);
                in.progress(inlineUnsettled);
                inlineUnsettled = 0;
            }
        }
        inlineUnsettled = 0;
        while (in.current() instanceof ByteBuf b && !b.isReadable()) {
            in.remove();
        }
    }

    /**
     * Holds the last frame an inline write sent until the next receive has gone up the pipeline. A frame decoder's
     * frames are slices of its cumulation, which it may append the next bytes to in place only while no slice of it is
     * held, and it discards the bytes it has read only then too, before channelReadComplete's flush; a cumulation that
     * still holds a partial frame when the echo's frames are all released before the next receive (as an inline write
     * releases them) grows with the whole stream, copied at each growth. With one slice held, the decoder copies the
     * partial frame into a new cumulation instead, as it does when the frames are still in flight in a SEND.
     */
    private void holdAfterInlineWrite(ByteBuf written) {
        ByteBuf before = heldAfterInlineWrite;
        heldAfterInlineWrite = written.retain();
        if (before != null) {
            before.release();
        }
    }

    /** A receive's bytes have met the frames the last inline write sent, or the channel closed. */
    void releaseHeldAfterInlineWrite() {
        ByteBuf held = heldAfterInlineWrite;
        if (held != null) {
            heldAfterInlineWrite = null;
            held.release();
        }
    }
}
