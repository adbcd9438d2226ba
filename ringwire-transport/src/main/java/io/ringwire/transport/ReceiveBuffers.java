package io.ringwire.transport;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.NativeIoException;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * A loop's receive buffer ring (provided buffers, {@link RingwireIoHandlerConfig#bufferRing()}): set up incremental
 * where the kernel has it, else classic and growable; buffers returned and published once per batch of completions;
 * doubled when it runs dry, shrunk when the load that grew it has gone. On the loop only.
 */
final class ReceiveBuffers {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ReceiveBuffers.class);

    /** Buffer group id of the loop's receive buffer ring. */
    static final short GROUP = 0;
    /** The clock is read once in this many drains (plus one). */
    private static final int SHRINK_CHECK_DRAINS = 255;
    private static volatile boolean incrementalFallbackLogged;

    private final RingwireIoHandler loop;
    private final RingwireIoHandlerConfig config;
    private final RingwireCounters counters;
    /** {@link RingwireIoHandlerConfig#bufferRingShrinkMillis()}; 0: the ring never shrinks. */
    private final long shrinkPeriodNanos;
    /** Null when the loop has none (receives go straight into allocator buffers). */
    private BufferRing ring;
    private ByteBuffer[] views;
    /** The most receives one batch of completions carried since the ring last looked at what it needed. */
    private int peakBatchReceives;
    private int drainsSinceShrinkCheck;
    private long shrinkPeriodStart = System.nanoTime();
    private boolean dryRingWarned;
    /** The ring grew while this batch of completions was drained. */
    private boolean grewThisDrain;

    ReceiveBuffers(RingwireIoHandler loop, RingwireIoHandlerConfig config, RingwireCounters counters) {
        this.loop = loop;
        this.config = config;
        this.counters = counters;
        this.shrinkPeriodNanos = TimeUnit.MILLISECONDS.toNanos(config.bufferRingShrinkMillis());
    }

    /** Registers the ring with {@code uring}, if the configuration asks for one; on the loop's first initialize. */
    void register(IoUring uring) throws NativeIoException {
        if (!config.bufferRing()) {
            return;
        }
        ring = registerRing(uring);
        counters.bufferRingBuffers = ring.provided();
        MemorySegment all = ring.segment();
        int size = ring.bufferSize();
        views = new ByteBuffer[ring.entries()];
        for (int bid = 0; bid < views.length; bid++) {
            views[bid] = all.asSlice((long) bid * size, size).asByteBuffer();
        }
    }

    /** Incremental buffers where the kernel has them (6.12), else the classic ring; says once what it fell back to. */
    private BufferRing registerRing(IoUring uring) throws NativeIoException {
        if (config.incrementalBuffers()) {
            try {
                return BufferRing.registerIncremental(uring, GROUP, config.bufferRingEntries(true),
                    config.bufferSize(true));
            } catch (NativeIoException e) {
                if (e.errno() != Errno.EINVAL) {
                    throw e;
                }
                if (!incrementalFallbackLogged) {
                    incrementalFallbackLogged = true;
                    logger.info("this kernel has no incremental buffer rings (IOU_PBUF_RING_INC, Linux 6.12): "
                        + "receiving into {} buffers of {} bytes", config.bufferRingEntries(false),
                        config.bufferSize(false));
                }
            }
        }
        // a few buffers in use at first, doubling each time the ring runs dry: a quiet loop keeps a few pages
        // resident, not every buffer
        return BufferRing.registerGrowable(uring, GROUP, config.bufferRingEntries(false),
            config.bufferSize(false), config.initialRingBuffers());
    }

    /** @return the loop's receive buffer ring, or null when {@link RingwireIoHandlerConfig#bufferRing()} is off */
    BufferRing bufferRing() {
        return ring;
    }

    /**
     * A view of one receive buffer, positioned on {@code [offset, offset + length)}; reused, valid until the next
     * call.
     */
    ByteBuffer view(int bid, int offset, int length) {
        ByteBuffer v = views[bid];
        v.clear().position(offset).limit(offset + length);
        return v;
    }

    /**
     * A receive found the shared buffer ring empty (ENOBUFS): counted; the ring doubles if it can. At its largest,
     * said once per loop with what to change, and the connection's next receive goes into a buffer of its own.
     *
     * @return whether the ring grew (its new buffers are published: arm the receive on it again)
     */
    boolean ranDry() {
        counters.bufferRingExhausted++;
        if (grewThisDrain) {
            return true; // one empty ring ends many receives in the same batch: it doubles once for all of them
        }
        if (ring.grow()) {
            grewThisDrain = true; // counters.bufferRingBuffers follows at the batch's end
            return true;
        }
        if (!dryRingWarned) {
            dryRingWarned = true;
            logger.warn("{}: the receive buffer ring ({} buffers of {} B) ran dry (ENOBUFS); the connections it "
                    + "starved read into buffers of their own until it refills. If RingwireCounters."
                    + "bufferRingExhausted() keeps growing, raise -Dringwire.bufferRingEntries (or "
                    + "RingwireIoHandlerConfig.builder().bufferRingEntries(n)). Said once per loop.", loop.executor(),
                ring.entries(), ring.bufferSize());
        }
        return false;
    }

    /** A batch of completions is about to be drained. */
    void batchStarts() {
        grewThisDrain = false;
    }

    /**
     * A batch of completions was drained: the buffers returned are published, and now and then the ring looks at
     * whether it may shrink.
     *
     * @param receives receives (of every channel) that the last batch with completions carried
     */
    void batchEnded(int receives) {
        BufferRing r = ring;
        if (r == null) {
            return;
        }
        r.publish();
        if (counters.bufferRingBuffers != r.provided()) { // it grew, or a shrink ended in this batch
            counters.bufferRingBuffers = r.provided();
            counters.bufferRingReleasedBytes = r.releasedBytes();
        }
        if (shrinkPeriodNanos > 0) {
            peakBatchReceives = Math.max(peakBatchReceives, receives);
            if ((++drainsSinceShrinkCheck & SHRINK_CHECK_DRAINS) == 0) {
                maybeShrink();
            }
        }
    }

    /**
     * Once per {@link RingwireIoHandlerConfig#bufferRingShrinkMillis()}: a ring that grew and whose batches of
     * completions carried no more than a quarter of its buffers' receives shrinks to twice the most one carried (at
     * least its initial size). A batch of receives is what the kernel takes from the ring between two refills, so the
     * ring keeps twice what the loop needed; a later burst finds it empty and doubles it again, as at the start.
     */
    private void maybeShrink() {
        long now = System.nanoTime();
        if (now - shrinkPeriodStart < shrinkPeriodNanos) {
            return;
        }
        int needed = peakBatchReceives;
        shrinkPeriodStart = now;
        peakBatchReceives = 0;
        int provided = ring.provided();
        if (needed * 4L <= provided && provided > config.initialRingBuffers()) {
            int target = Math.max(config.initialRingBuffers(),
                Integer.highestOneBit(Math.max(1, needed * 2 - 1)) << 1);
            if (target < provided && ring.shrink(target)) {
                counters.bufferRingShrinks++;
            }
        }
    }

    /** A receive whose registration is gone still took a ring buffer: given back, or the ring runs dry. */
    void giveBackUnclaimed(int res, int flags) {
        if (IoUringCqe.hasBuffer(flags) && ring != null) {
            ring.release(IoUringCqe.bufferId(flags), res, flags);
        }
    }

    /** Frees the ring's memory; once nothing in flight can write into it. */
    void close() {
        if (ring != null) {
            ring.close();
        }
    }
}
