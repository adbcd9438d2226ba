package io.ringwire.transport;

import io.ringwire.uring.IoUring;
import io.ringwire.uring.SubmissionQueue;

import java.lang.foreign.MemorySegment;

/**
 * A loop's native scratch space for one iteration's SQEs: iovecs, msghdrs and sockaddrs they point at. The kernel
 * copies what an SQE points at when it takes the SQE (FEAT_SUBMIT_STABLE), so the space is reused once every queued
 * SQE has been submitted. On the loop only.
 */
final class Scratch {
    private final IoUring ring;
    private final SubmissionQueue sq;
    private final MemorySegment segment;
    private long used;

    /**
     * @param ring    the loop's ring, submitted early when an iteration has used all the space
     * @param segment the space, 16-byte aligned
     */
    Scratch(IoUring ring, MemorySegment segment) {
        this.ring = ring;
        this.sq = ring.sq();
        this.segment = segment;
    }

    /**
     * Native scratch space valid until the next enter (the kernel copies it at submission), e.g. for iovecs or a
     * sockaddr. Submits early when the iteration has used it all.
     *
     * @return the address of {@code bytes} bytes, 16-byte aligned
     */
    long take(int bytes) {
        long aligned = (bytes + 15) & ~15L;
        if (used + aligned > segment.byteSize()) {
            if (aligned > segment.byteSize()) {
                throw new IllegalArgumentException("scratch request too large: bytes=" + bytes);
            }
            ring.submit(); // hand over what the SQEs point at, then reuse the space
            if (sq.unconsumed() != 0) {
                throw new IllegalStateException("io_uring_enter did not take the queued SQEs; scratch space is full");
            }
            used = 0;
        }
        long address = segment.address() + used;
        used += aligned;
        return address;
    }

    /** @return bytes of scratch space left before {@link #take(int)} has to submit early */
    long remaining() {
        return segment.byteSize() - used;
    }

    /**
     * Gives back the unused tail of the most recent {@link #take(int)} request.
     *
     * @param address   what that request returned
     * @param requested the bytes asked for
     * @param stillUsed the bytes still needed from its start (0 gives all of it back)
     */
    void giveBack(long address, int requested, int stillUsed) {
        long start = address - segment.address();
        if (start + ((requested + 15) & ~15L) == used) { // only the newest request can shrink
            used = start + ((stillUsed + 15) & ~15L);
        }
    }

    /** @return the scratch segment, for writing what {@link #take(int)} returned */
    MemorySegment segment() {
        return segment;
    }

    /** After an enter: the space is free again once the kernel has taken every queued SQE (copying what they name). */
    void reuseIfSubmitted() {
        if (sq.unconsumed() == 0) {
            used = 0;
        }
    }
}
