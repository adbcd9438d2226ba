package io.ringwire.uring;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The completion side of one ring. {@link #drain} reads every ready CQE in one batch and publishes the head once, in
 * {@code finally}, the way liburing's {@code io_uring_cq_advance} after {@code io_uring_for_each_cqe} does.
 *
 * <p>Not thread-safe: one ring, one owning thread.
 */
public final class CompletionQueue {
    // C11 atomics used: kernel writes *ktail (we read with acquire, so the CQEs before it are visible);
    // we write *khead (release, so the kernel sees we are done reading the slots).
    // addresses in the ring's mapping, which lives as long as the ring: accessed through RawMemory (no checks)
    private final long khead;
    private final long ktail;
    private final long koverflow;
    private final long cqes;
    private final int mask;
    private final int entries;
    /** Position of the first CQE not yet handed out: inside {@link #drain}'s handler, the one after its CQE. */
    private int unhandled;
    /** {@link #handOver} ran during the current {@link #drain}: the drain stops, the head already past its CQEs. */
    private boolean handedOver;

    CompletionQueue(MemorySegment rings, MemorySegment params) {
        int base = IoUringParams.CQ_OFF;
        long ringsAddress = rings.address();
        this.khead = ringsAddress + params.get(JAVA_INT, base + IoUringParams.CQ_OFF_HEAD);
        this.ktail = ringsAddress + params.get(JAVA_INT, base + IoUringParams.CQ_OFF_TAIL);
        this.koverflow = ringsAddress + params.get(JAVA_INT, base + IoUringParams.CQ_OFF_OVERFLOW);
        this.cqes = ringsAddress + params.get(JAVA_INT, base + IoUringParams.CQ_OFF_CQES);
        this.mask = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.CQ_OFF_RING_MASK));
        this.entries = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.CQ_OFF_RING_ENTRIES));
        this.unhandled = RawMemory.getIntOpaque(khead);
    }

    /** @return the number of CQE slots */
    public int entries() {
        return entries;
    }

    /** @return CQEs ready to be read */
    public int ready() {
        return RawMemory.getIntAcquire(ktail) - RawMemory.getIntOpaque(khead);
    }

    /** @return the kernel's count of CQEs it could not post because the ring was full (cq_ring->overflow) */
    public int overflow() {
        return RawMemory.getIntOpaque(koverflow);
    }

    /**
     * Hands up to {@code max} ready CQEs to {@code handler}, then releases their slots. A handler that calls
     * {@link #handOver} ends it after its CQE: the CQEs after it went to that call's handler.
     *
     * @param handler called once per CQE, in order
     * @param max     at most this many
     * @return how many CQEs were handed to {@code handler}
     */
    public int drain(CompletionHandler handler, int max) {
        int head = RawMemory.getIntOpaque(khead); // only this thread writes the head
        final int tail = RawMemory.getIntAcquire(ktail);
        final int n = Math.min(tail - head, max);
        int i = 0;
        handedOver = false;
        try {
            while (i < n) {
                long cqe = cqes + (long) ((head + i) & mask) * IoUringCqe.SIZE;
                // counted before the call: a handler that throws still consumes its CQE (it has seen it, replaying it
                // would double-complete)
                unhandled = head + ++i;
                long userData = RawMemory.getLong(cqe + IoUringCqe.USER_DATA_OFFSET);
                int res = RawMemory.getInt(cqe + IoUringCqe.RES_OFFSET);
                int flags = RawMemory.getInt(cqe + IoUringCqe.FLAGS_OFFSET);
                handler.complete(userData, res, flags);
                if (handedOver) {
                    break; // the rest went to handOver's handler, and the head past them
                }
            }
        } finally {
            if (!handedOver) {
                // published even when nothing was consumed (the same head again): a branch taken only by an empty
                // drain (a wait that timed out) is one a busy loop never takes, compiled as a trap (see
                // Libc.orMinusErrno; JitStabilityTest)
                RawMemory.putIntRelease(khead, head + i);
                unhandled = head + i;
            }
        }
        return i;
    }

    /**
     * Hands every ready CQE not handed out yet to {@code handler} and releases their slots at once, so that the
     * kernel can post into every slot again (and, at the next enter with GETEVENTS, move in what waits on its overflow
     * list). Called from {@link #drain}'s handler, it takes the CQEs after the one being handled, and that drain
     * stops after it; called outside a drain, every ready CQE.
     *
     * @param handler called once per CQE, in order
     * @return how many CQEs were handed to it
     */
    public int handOver(CompletionHandler handler) {
        final int from = unhandled;
        final int tail = RawMemory.getIntAcquire(ktail);
        for (int p = from; p != tail; p++) {
            long cqe = cqes + (long) (p & mask) * IoUringCqe.SIZE;
            handler.complete(RawMemory.getLong(cqe + IoUringCqe.USER_DATA_OFFSET),
                RawMemory.getInt(cqe + IoUringCqe.RES_OFFSET), RawMemory.getInt(cqe + IoUringCqe.FLAGS_OFFSET));
        }
        RawMemory.putIntRelease(khead, tail);
        unhandled = tail;
        handedOver = true;
        return tail - from;
    }

    /**
     * Like {@link #postedResult}, looking from the newest CQE back: for an op whose user_data is unique among the
     * CQEs not handed out yet and which completed as it was submitted (its CQE is at or near the tail), found without
     * reading the whole batch before it.
     *
     * @param userData the op's user_data, unique among the unhandled CQEs
     * @return its res, or {@link Integer#MIN_VALUE} when the kernel has not posted it
     */
    public int newestPostedResult(long userData) {
        final int tail = RawMemory.getIntAcquire(ktail);
        for (int p = tail - 1; p - unhandled >= 0; p--) {
            long cqe = cqes + (long) (p & mask) * IoUringCqe.SIZE;
            if (RawMemory.getLong(cqe + IoUringCqe.USER_DATA_OFFSET) == userData) {
                return RawMemory.getInt(cqe + IoUringCqe.RES_OFFSET);
            }
        }
        return Integer.MIN_VALUE;
    }

    /**
     * Looks ahead for a completion the kernel has posted but this queue has not handed out yet: inside
     * {@link #drain}'s handler, among the CQEs after the one being handled. For a caller that must know an op's
     * outcome before its turn comes (a close in the middle of a batch, deciding whether a write's bytes went out).
     * Reads only; the CQE is still handed out in its turn.
     *
     * @param userData  the op's user_data
     * @param skipFlags a CQE of it with any of these flags is passed over (e.g. a zero-copy send's notification)
     * @return the first such CQE's res, or {@link Integer#MIN_VALUE} when the kernel has not posted one
     */
    public int postedResult(long userData, int skipFlags) {
        final int tail = RawMemory.getIntAcquire(ktail);
        for (int p = unhandled; p != tail; p++) {
            long cqe = cqes + (long) (p & mask) * IoUringCqe.SIZE;
            if (RawMemory.getLong(cqe + IoUringCqe.USER_DATA_OFFSET) == userData
                && (RawMemory.getInt(cqe + IoUringCqe.FLAGS_OFFSET) & skipFlags) == 0) {
                return RawMemory.getInt(cqe + IoUringCqe.RES_OFFSET);
            }
        }
        return Integer.MIN_VALUE;
    }
}
