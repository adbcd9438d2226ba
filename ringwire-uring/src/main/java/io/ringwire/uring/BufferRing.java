package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static io.ringwire.uring.IoUringConstants.IORING_CQE_F_BUF_MORE;
import static io.ringwire.uring.IoUringConstants.IORING_REGISTER_PBUF_RING;
import static io.ringwire.uring.IoUringConstants.IORING_UNREGISTER_PBUF_RING;
import static io.ringwire.uring.IoUringConstants.IOU_PBUF_RING_INC;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A provided buffer ring [5.19] ({@code IORING_REGISTER_PBUF_RING}): {@code entries} buffers of {@code bufferSize}
 * bytes that the kernel picks from for RECV with {@code IOSQE_BUFFER_SELECT}; each CQE names the buffer it filled.
 *
 * <p>Buffer lifecycle: (1) {@link #register} adds every buffer; (2) the kernel takes one per completion and reports
 * its id in the CQE flags; (3) the owner reads it ({@link #address}, {@link #segment()}); (4) {@link #recycle} puts it
 * back, and {@link #publish} makes the returns visible with one store-release of the ring tail. When every buffer is
 * out, a multishot RECV ends with {@code -ENOBUFS}; recycle, publish and re-arm.
 *
 * <p>Memory: the buffers are one anonymous private mapping, so a page costs resident memory only once the kernel
 * or the owner writes to it. A ring made with {@link #registerGrowable} starts with a few of its buffers in use and
 * {@link #grow()}s by doubling (typically when a receive finds it empty), so a quiet loop keeps a few pages resident
 * instead of every buffer (a ring hands buffers out first-in first-out, which would touch them all in time). After a
 * burst it can {@link #shrink} again: the buffers above the new size are kept out of the ring as they come back, and
 * once all have, their pages go back to the system ({@code madvise(MADV_DONTNEED)}).
 *
 * <p>Incremental consumption [6.12] ({@code IOU_PBUF_RING_INC}): a completion uses only the bytes it received and
 * the rest of the buffer stays at the ring's head for the next one (CQE flag {@code IORING_CQE_F_BUF_MORE}), so a
 * few large buffers serve both many small receives and 64 KiB bulk reads. Read a completion's bytes at
 * {@link #dataOffset(int)} and hand it back with {@link #release(int, int, int)}, which recycles the buffer only once
 * the kernel is done with it.
 *
 * <pre>
 * struct io_uring_buf     { __u64 addr; __u32 len; __u16 bid; __u16 resv; };   // 16 bytes, ring entries
 * struct io_uring_buf_reg { __u64 ring_addr; __u32 ring_entries; __u16 bgid; __u16 flags; __u64 resv[3]; }; // 40
 * // the ring's tail is the u16 at offset 14: it overlays resv of entry 0
 * </pre>
 */
public final class BufferRing implements AutoCloseable {
    public static final int BUF_SIZE = 16;
    public static final int BUF_ADDR_OFFSET = 0;
    public static final int BUF_LEN_OFFSET = 8;
    public static final int BUF_BID_OFFSET = 12;
    public static final int RING_TAIL_OFFSET = 14;
    public static final int BUF_REG_SIZE = 40;

    // C11: the kernel reads the tail with acquire; we publish it with release after writing the entries
    private static final VarHandle SHORT = JAVA_SHORT.varHandle();

    private final IoUring ring;
    private final short groupId;
    private final int entries;
    private final int mask;
    private final int bufferSize;
    private final Arena arena;
    private final MemorySegment ringMemory;
    private final MemorySegment buffers;
    private final long buffersAddress;
    private final long buffersLength;
    private final long bytes;
    /** Buffers handed to the ring so far: ids 0 to provided - 1. */
    private int provided;
    private int tail;
    private int publishedTail;
    private int outstanding;
    private long returned;
    private boolean closed;
    private final boolean incremental;
    private final int[] consumed;
    /** While shrinking: buffers with this id or above are kept out of the ring as they come back; else MAX_VALUE. */
    private int shrinkTo = Integer.MAX_VALUE;
    /** While shrinking: buffers at or above {@link #shrinkTo} not yet back. */
    private int stillOut;
    /** While shrinking: which of them are back (kept out of the ring). */
    private final boolean[] parked;
    private long releasedBytes;

    private BufferRing(IoUring ring, short groupId, int entries, int bufferSize, boolean incremental, int initial)
        throws NativeIoException {
        if (Integer.bitCount(entries) != 1 || entries > 32768) {
            throw new IllegalArgumentException("entries must be a power of two up to 32768: entries=" + entries);
        }
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("bufferSize must be positive: bufferSize=" + bufferSize);
        }
        this.ring = ring;
        this.groupId = groupId;
        this.entries = entries;
        this.mask = entries - 1;
        this.bufferSize = bufferSize;
        this.incremental = incremental;
        if (initial < 1 || initial > entries) {
            throw new IllegalArgumentException("initial buffers must be 1 to entries: initial=" + initial
                + ", entries=" + entries);
        }
        this.consumed = new int[entries];
        this.parked = new boolean[entries];
        this.arena = Arena.ofShared();
        this.buffersLength = (long) entries * bufferSize;
        // pages untouched until used (an Arena allocation would zero, and so commit, every one of them)
        long mapped = Libc.mmap(buffersLength, Libc.PROT_READ_WRITE, Libc.MAP_PRIVATE_ANONYMOUS, -1, 0);
        if (mapped < 0) {
            arena.close();
            NativeIoException.check((int) mapped, "mmap " + buffersLength + " B of receive buffers");
        }
        this.buffersAddress = mapped;
        // in the arena's scope: once closed, a stray access throws instead of touching unmapped memory
        this.buffers = MemorySegment.ofAddress(mapped).reinterpret(buffersLength, arena, null);
        try {
            this.ringMemory = arena.allocate((long) entries * BUF_SIZE, 4096); // the kernel wants it page-aligned
            MemorySegment reg = arena.allocate(BUF_REG_SIZE, 8);
            reg.set(JAVA_LONG, 0, ringMemory.address());
            reg.set(JAVA_INT, 8, entries);
            reg.set(JAVA_SHORT, 12, groupId);
            reg.set(JAVA_SHORT, 14, incremental ? IOU_PBUF_RING_INC : (short) 0);
            NativeIoException.check(ring.register(IORING_REGISTER_PBUF_RING, reg, 1),
                "io_uring_register(PBUF_RING, bgid=" + groupId + ", entries=" + entries
                    + (incremental ? ", IOU_PBUF_RING_INC" : "") + ")");
        } catch (NativeIoException | RuntimeException e) {
            arena.close();
            Libc.munmap(buffersAddress, buffersLength);
            throw e;
        }
        this.bytes = (long) entries * BUF_SIZE + buffersLength + BUF_REG_SIZE;
        NativeMemory.reserve(bytes);
        for (int bid = 0; bid < initial; bid++) {
            add(bid);
        }
        provided = initial;
        publish();
    }

    /**
     * Allocates {@code entries × bufferSize} bytes of buffers, registers them as group {@code groupId} on
     * {@code ring}, and hands all of them to the kernel. Call on the ring's owning thread.
     *
     * @param ring       the ring
     * @param groupId    the buffer group id that SQEs name
     * @param entries    a power of two, at most 32768
     * @param bufferSize bytes per buffer
     * @return the registered ring
     * @throws NativeIoException if the kernel refuses (e.g. {@code EEXIST}: group in use; {@code EINVAL}: too old)
     */
    public static BufferRing register(IoUring ring, short groupId, int entries, int bufferSize)
        throws NativeIoException {
        return new BufferRing(ring, groupId, entries, bufferSize, false, entries);
    }

    /**
     * Like {@link #register(IoUring, short, int, int)}, with only {@code initial} of the {@code entries} buffers handed
     * to the kernel; {@link #grow()} hands it more.
     *
     * @param ring       the ring
     * @param groupId    the buffer group id that SQEs name
     * @param entries    the most buffers it will ever have: a power of two, at most 32768
     * @param bufferSize bytes per buffer
     * @param initial    buffers in use from the start, 1 to {@code entries}
     * @return the registered ring
     * @throws NativeIoException if the kernel refuses
     */
    public static BufferRing registerGrowable(IoUring ring, short groupId, int entries, int bufferSize, int initial)
        throws NativeIoException {
        return new BufferRing(ring, groupId, entries, bufferSize, false, initial);
    }

    /**
     * Doubles the buffers in use (at most to {@link #entries()}) and publishes them. Call on the ring's owning thread.
     *
     * @return false if every buffer was in use already
     */
    public boolean grow() {
        if (shrinkTo != Integer.MAX_VALUE) { // it shrank too far: the buffers kept out so far go back in first
            boolean any = false;
            for (int bid = shrinkTo; bid < provided; bid++) {
                if (parked[bid]) {
                    parked[bid] = false;
                    add(bid);
                    any = true;
                }
            }
            shrinkTo = Integer.MAX_VALUE;
            stillOut = 0;
            if (any || provided == entries) {
                publish();
                return any;
            }
        }
        if (provided == entries) {
            return false;
        }
        int next = Math.min(entries, provided * 2);
        for (int bid = provided; bid < next; bid++) {
            add(bid);
        }
        provided = next;
        publish();
        return true;
    }

    /** @return buffers in use: handed to the kernel at least once ({@link #entries()} unless the ring grows) */
    public int provided() {
        return provided;
    }

    /**
     * Starts shrinking a ring made with {@link #registerGrowable} to its first {@code target} buffers: from now on
     * the buffers with higher ids are kept out of the ring as they come back ({@link #release}, {@link #recycle}), and
     * when the last of them is back, {@link #provided()} becomes {@code target} and their pages go back to the system.
     * A ring hands its buffers out first-in first-out, so those in it now come back once as many receives have used
     * the ring. {@link #grow()} meanwhile puts the ones kept out back first. Call on the ring's owning thread.
     *
     * @param target buffers to keep, at least 1
     * @return false (and nothing changes) if the ring consumes incrementally, is shrinking already, or has no more than
     *         {@code target} buffers
     */
    public boolean shrink(int target) {
        if (incremental || shrinkTo != Integer.MAX_VALUE || target < 1 || target >= provided) {
            return false;
        }
        shrinkTo = target;
        stillOut = provided - target;
        return true;
    }

    /** @return whether a {@link #shrink} is under way */
    public boolean shrinking() {
        return shrinkTo != Integer.MAX_VALUE;
    }

    /** @return bytes of buffer pages given back to the system by the shrinks that finished */
    public long releasedBytes() {
        return releasedBytes;
    }

    /** A buffer came back: into the ring, or, above a shrink's target, kept out ({@link #park}). */
    private void putBack(int bid) {
        if (bid >= shrinkTo) {
            park(bid);
        } else {
            add(bid);
        }
    }

    /** A buffer above the shrink's target came back: it stays out; the last one back ends the shrink. */
    private void park(int bid) {
        parked[bid] = true;
        if (--stillOut > 0) {
            return;
        }
        long align = Libc.pageSize(); // whole pages only: one shared with a buffer kept stays
        long from = (address(shrinkTo) + align - 1) & -align;
        long to = address(provided) & -align;
        if (to > from && Libc.madvise(from, to - from, Libc.MADV_DONTNEED) == 0) {
            releasedBytes += to - from;
        }
        Arrays.fill(parked, shrinkTo, provided, false);
        provided = shrinkTo;
        shrinkTo = Integer.MAX_VALUE;
    }

    /**
     * Like {@link #register(IoUring, short, int, int)}, with incremental consumption ({@code IOU_PBUF_RING_INC}).
     *
     * @param ring       the ring
     * @param groupId    the buffer group id that SQEs name
     * @param entries    a power of two, at most 32768
     * @param bufferSize bytes per buffer
     * @return the registered ring
     * @throws NativeIoException {@code EINVAL} on kernels before 6.12, which do not know the flag
     */
    public static BufferRing registerIncremental(IoUring ring, short groupId, int entries, int bufferSize)
        throws NativeIoException {
        return new BufferRing(ring, groupId, entries, bufferSize, true, entries);
    }

    /** @return whether buffers are consumed incrementally */
    public boolean isIncremental() {
        return incremental;
    }

    /**
     * @param bid a buffer id from a CQE
     * @return where that completion's bytes start in the buffer: 0, or with incremental consumption what earlier
     *         completions on the same buffer used
     */
    public int dataOffset(int bid) {
        return consumed[bid];
    }

    /**
     * Hands back what one completion used, after its bytes were read at {@link #dataOffset(int)}. The buffer is
     * recycled unless the kernel still holds the rest of it ({@code IORING_CQE_F_BUF_MORE}, incremental rings only).
     * Replaces {@link #taken()} + {@link #recycle(int)} for rings of either kind.
     *
     * @param bid      the id from the CQE
     * @param res      the bytes it carried
     * @param cqeFlags the CQE's flags
     */
    public void release(int bid, int res, int cqeFlags) {
        if (incremental && (cqeFlags & IORING_CQE_F_BUF_MORE) != 0) {
            consumed[bid] += res;
            return;
        }
        consumed[bid] = 0;
        putBack(bid); // taken and returned in one step: outstanding() does not change
        returned++;
    }

    private void add(int bid) {
        long e = (long) (tail & mask) * BUF_SIZE;
        MemorySegment r = ringMemory;
        r.set(JAVA_LONG, e + BUF_ADDR_OFFSET, buffersAddress + (long) bid * bufferSize);
        r.set(JAVA_INT, e + BUF_LEN_OFFSET, bufferSize);
        r.set(JAVA_SHORT, e + BUF_BID_OFFSET, (short) bid);
        tail++;
    }

    /** @return the buffer group id */
    public short groupId() {
        return groupId;
    }

    /** @return the most buffers the ring can have (all of them in use unless made with {@link #registerGrowable}) */
    public int entries() {
        return entries;
    }

    /** @return bytes per buffer */
    public int bufferSize() {
        return bufferSize;
    }

    /** @return all buffers as one segment; buffer {@code bid} starts at {@code bid * bufferSize()} */
    public MemorySegment segment() {
        return buffers;
    }

    /**
     * @param bid a buffer id from a CQE
     * @return the buffer's native address
     */
    public long address(int bid) {
        return buffersAddress + (long) bid * bufferSize;
    }

    /**
     * Notes that the kernel handed out a buffer (call once per CQE that carries one), for {@link #outstanding()}.
     */
    public void taken() {
        outstanding++;
    }

    /** @return buffers the application holds (taken and not yet recycled) */
    public int outstanding() {
        return outstanding;
    }

    /**
     * Returns a buffer to the ring; visible to the kernel after {@link #publish()}.
     *
     * @param bid the id from the CQE
     */
    public void recycle(int bid) {
        if (bid < 0 || bid >= provided) {
            throw new IllegalArgumentException("no such buffer: bid=" + bid + ", in use=" + provided);
        }
        putBack(bid);
        outstanding--;
        returned++;
    }

    /** @return buffers handed back to the ring since it was registered ({@link #release}, {@link #recycle}) */
    public long returned() {
        return returned;
    }

    /** Publishes every buffer recycled since the last call (one store-release). */
    public void publish() {
        if (tail != publishedTail) {
            SHORT.setRelease(ringMemory, (long) RING_TAIL_OFFSET, (short) tail);
            publishedTail = tail;
        }
    }

    /**
     * Unregisters the group and frees the buffers. Any RECV still armed on this group must have completed first.
     * Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!ring.isClosed()) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment reg = a.allocate(BUF_REG_SIZE, 8);
                reg.set(JAVA_SHORT, 12, groupId);
                ring.register(IORING_UNREGISTER_PBUF_RING, reg, 1);
            }
        }
        arena.close();
        Libc.munmap(buffersAddress, buffersLength);
        NativeMemory.release(bytes);
    }
}
