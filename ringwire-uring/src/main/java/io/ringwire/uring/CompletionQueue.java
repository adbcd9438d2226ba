package io.ringwire.uring;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The completion side of one ring. {@link #drain} reads every ready CQE in one batch and publishes the head once, in
 * {@code finally}, the way liburing's {@code io_uring_cq_advance} after {@code io_uring_for_each_cqe} does.
 *
 * <p>Not thread-safe: one ring, one owning thread.
 */
public final class CompletionQueue {
    // C11 atomics used: kernel writes *ktail (we read with acquire, so the CQEs before it are visible);
    // we write *khead (release, so the kernel sees we are done reading the slots).
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment rings;
    private final long kheadOffset;
    private final long ktailOffset;
    private final long koverflowOffset;
    private final long cqesOffset;
    private final int mask;
    private final int entries;

    CompletionQueue(MemorySegment rings, MemorySegment params) {
        this.rings = rings;
        int base = IoUringParams.CQ_OFF;
        this.kheadOffset = params.get(JAVA_INT, base + IoUringParams.CQ_OFF_HEAD);
        this.ktailOffset = params.get(JAVA_INT, base + IoUringParams.CQ_OFF_TAIL);
        this.koverflowOffset = params.get(JAVA_INT, base + IoUringParams.CQ_OFF_OVERFLOW);
        this.cqesOffset = params.get(JAVA_INT, base + IoUringParams.CQ_OFF_CQES);
        this.mask = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.CQ_OFF_RING_MASK));
        this.entries = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.CQ_OFF_RING_ENTRIES));
    }

    /** @return the number of CQE slots */
    public int entries() {
        return entries;
    }

    /** @return CQEs ready to be read */
    public int ready() {
        return (int) INT.getAcquire(rings, ktailOffset) - (int) INT.getOpaque(rings, kheadOffset);
    }

    /** @return the kernel's count of CQEs it could not post because the ring was full (cq_ring->overflow) */
    public int overflow() {
        return (int) INT.getOpaque(rings, koverflowOffset);
    }

    /**
     * Hands up to {@code max} ready CQEs to {@code handler}, then releases their slots.
     *
     * @param handler called once per CQE, in order
     * @param max     at most this many
     * @return how many CQEs were handled
     */
    public int drain(CompletionHandler handler, int max) {
        final MemorySegment r = rings;
        int head = (int) INT.getOpaque(r, kheadOffset); // only this thread writes the head
        final int tail = (int) INT.getAcquire(r, ktailOffset);
        final int n = Math.min(tail - head, max);
        int i = 0;
        try {
            for (; i < n; i++) {
                long cqe = cqesOffset + (long) ((head + i) & mask) * IoUringCqe.SIZE;
                long userData = r.get(JAVA_LONG, cqe + IoUringCqe.USER_DATA_OFFSET);
                int res = r.get(JAVA_INT, cqe + IoUringCqe.RES_OFFSET);
                int flags = r.get(JAVA_INT, cqe + IoUringCqe.FLAGS_OFFSET);
                handler.complete(userData, res, flags);
            }
        } finally {
            // a handler that throws still consumes its CQE: it has seen it, replaying it would double-complete
            int consumed = i < n ? i + 1 : n;
            if (consumed > 0) {
                INT.setRelease(r, kheadOffset, head + consumed);
            }
        }
        return n;
    }
}
