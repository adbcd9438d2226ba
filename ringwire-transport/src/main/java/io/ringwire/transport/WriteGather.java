package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.ringwire.uring.RawMemory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Gathers one channel's flushed buffers into a {@code struct msghdr} and its iovecs in the loop's scratch space, for
 * one SEND (one buffer) or SENDMSG. One per loop, used by one channel at a time and finished before the next starts
 * (the loop is single-threaded, and nothing in between runs user code), so this state costs no memory per
 * connection. Buffers that lie one after the other in memory share an iovec.
 */
final class WriteGather implements ChannelOutboundBuffer.MessageProcessor {
    /** The kernel's limit on iovecs per sendmsg. */
    static final int IOV_MAX = 1024;
    /** {@code sizeof(struct msghdr)}. */
    static final int MSGHDR_SIZE = 56;

    private final RingwireIoHandler loop;
    private long iovBase;
    private int iovCount;
    private long iovBytes;
    /** Where the last iovec's bytes end. */
    private long iovEnd;
    /**
     * The last iovec's length, written to its iovec when the next one starts or the gather ends: buffers that extend
     * it (an echo's frames, one after the other in one receive) then cost no native memory access each.
     */
    private long lastLength;
    private int messages;
    private int visited;
    private long maxBytes;
    private int capacity;

    WriteGather(RingwireIoHandler loop) {
        this.loop = loop;
    }

    /**
     * Fills the loop's scratch space with a msghdr and iovecs for {@code in}'s flushed buffers, as many as fit (at most
     * {@link #IOV_MAX} iovecs and {@link RingwireIoHandlerConfig#maxBytesPerWrite()} bytes): the write is then partial,
     * and the rest goes with the next one.
     *
     * @return the iovecs gathered; 0 when only empty buffers were flushed (the scratch space is all given back)
     * @throws Exception what a flushed message threw while being visited
     */
    int gather(ChannelOutboundBuffer in) throws Exception {
        // take what the loop's scratch space has left this iteration (at least a few iovecs per flushed message, at
        // most IOV_MAX), so that a composite of many components fits; what stays unused is given back below
        int atLeast = Math.min(Math.max(in.size(), 1) * 4, IOV_MAX);
        int cap = (int) Math.max(atLeast, Math.min(IOV_MAX, (loop.scratch().remaining() - MSGHDR_SIZE) / 16));
        long region = loop.scratch().take(MSGHDR_SIZE + 16 * cap);
        iovBase = region + MSGHDR_SIZE;
        iovCount = 0;
        iovBytes = 0;
        messages = 0;
        visited = 0;
        maxBytes = loop.config().maxBytesPerWrite();
        capacity = cap;
        try {
            in.forEachFlushedMessage(this);
        } catch (Exception e) {
            loop.scratch().giveBack(region, MSGHDR_SIZE + 16 * cap, 0);
            throw e;
        }
        loop.scratch().giveBack(region, MSGHDR_SIZE + 16 * cap, iovCount == 0 ? 0 : MSGHDR_SIZE + 16 * iovCount);
        if (iovCount > 0) {
            RawMemory.putLong(iovBase + 16L * (iovCount - 1) + 8, lastLength);
            // struct msghdr { name, namelen, iov, iovlen, control, controllen, flags }: only the iovecs are set
            // (addresses inside the region the loop reserved above: RawMemory, no per-access checks)
            for (int i = 0; i < MSGHDR_SIZE; i += 8) { // zeroed in place: no slice object per write
                RawMemory.putLong(region + i, 0L);
            }
            RawMemory.putLong(region + 16, iovBase);
            RawMemory.putLong(region + 24, iovCount);
        }
        return iovCount;
    }

    /** @return the native address of the msghdr the last {@link #gather} filled */
    long msghdr() {
        return iovBase - MSGHDR_SIZE;
    }

    /** @return the msghdr the last {@link #gather} filled, for a synchronous sendmsg(2) */
    MemorySegment msghdrSegment() {
        MemorySegment scratch = loop.scratch().segment();
        return scratch.asSlice(msghdr() - scratch.address(), MSGHDR_SIZE);
    }

    /** @return the bytes the last {@link #gather} took */
    long bytes() {
        return iovBytes;
    }

    /**
     * @return how many of the first flushed messages the last {@link #gather} covered: up to the last one it took
     *         bytes from (perhaps in part), empty ones between included
     */
    int messages() {
        return messages;
    }

    /** @return the first iovec's base address */
    long firstAddress() {
        return RawMemory.getLong(iovBase);
    }

    /** @return the first iovec's length */
    int firstLength() {
        return (int) RawMemory.getLong(iovBase + 8);
    }

    @Override
    public boolean processMessage(Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            return false;
        }
        int readable = buf.readableBytes();
        visited++;
        if (readable == 0) {
            return true;
        }
        messages = visited;
        return addBytes(buf, buf.readerIndex(), readable);
    }

    /**
     * Adds {@code buf}'s bytes {@code [index, index + length)}: one iovec when they are one piece of native memory; a
     * composite's components one by one (each component's view is made once and kept by the composite, so a flushed
     * composite costs no array or view per write); anything else through its NIO views. As many as there is room
     * for; the write is then partial, and the rest goes with the next one.
     *
     * @return false if they did not all fit
     */
    private boolean addBytes(ByteBuf buf, int index, int length) {
        long address = AbstractRingwireChannel.nativeAddress(buf, index, length);
        if (address != 0) {
            return addIovec(address, length);
        }
        if (buf instanceof CompositeByteBuf c) {
            int end = index + length;
            for (int i = c.toComponentIndex(index); index < end; i++) {
                ByteBuf part = c.internalComponent(i);
                int offset = index - c.toByteIndex(i);
                int n = Math.min(part.readableBytes() - offset, end - index);
                if (n > 0) {
                    if (!addBytes(part, part.readerIndex() + offset, n)) {
                        return false;
                    }
                    index += n;
                }
            }
            return true;
        }
        for (ByteBuffer nio : buf.nioBuffers(index, length)) {
            if (nio.hasRemaining() && !addIovec(MemorySegment.ofBuffer(nio).address(), nio.remaining())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds one piece of native memory: to the last iovec when it starts where that one ends (the frames a decoder
     * sliced from one receive and an echo writes back lie one after the other: one iovec for all of them, where
     * epoll's writev takes one per message and the kernel imports and walks each), else as a new iovec.
     */
    private boolean addIovec(long address, int length) {
        if (iovBytes >= maxBytes) {
            return false;
        }
        int len = (int) Math.min(length, maxBytes - iovBytes);
        if (iovCount > 0 && address == iovEnd) {
            lastLength += len;
        } else {
            if (iovCount == capacity) {
                return false;
            }
            long iovec = iovBase + 16L * iovCount; // below the reserved capacity (checked above)
            if (iovCount > 0) {
                RawMemory.putLong(iovec - 8, lastLength); // the previous iovec's length, now final
            }
            RawMemory.putLong(iovec, address);
            lastLength = len;
            iovCount++;
        }
        iovEnd = address + len;
        iovBytes += len;
        return len == length;
    }

    /**
     * Removes {@code written} bytes' worth of flushed buffers, as {@link ChannelOutboundBuffer#removeBytes} does,
     * but stops where the buffer runs out of them: a listener of a removed buffer's promise may close the channel,
     * which fails (and removes) the flushed buffers left, whose bytes this write may already have sent.
     */
    static void removeWritten(ChannelOutboundBuffer in, long written) {
        while (written > 0 && in.current() instanceof ByteBuf buf) {
            int readable = buf.readableBytes();
            if (readable <= written) {
                written -= readable;
                in.progress(readable);
                in.remove();
            } else {
                buf.readerIndex(buf.readerIndex() + (int) written);
                in.progress(written);
                written = 0;
            }
        }
        while (in.current() instanceof ByteBuf b && !b.isReadable()) {
            in.remove(); // empty buffers at the head are written too, as removeBytes removes them
        }
    }
}
