package io.ringwire.transport;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.CompletionHandler;
import io.ringwire.uring.CompletionQueue;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SubmissionQueue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static io.ringwire.uring.IoUringConstants.IORING_OP_ASYNC_CANCEL;

/**
 * A loop's synchronous calls: one SQE submitted now and its result waited for (a socket option, an address, an fd
 * for a call, on a direct descriptor), and the stash of completions a call takes out of a full CQ to make room for
 * its own, which the loop's dispatch hands out next, in their order. On the loop only.
 */
final class SyncCalls {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SyncCalls.class);

    /** Bytes of {@link #area()}. */
    static final int AREA_BYTES = 512;
    /** user_data data bit of a synchronous call's SQE: its CQE is read by the caller, the dispatch passes it over. */
    private static final int SYNC = 1 << 23;
    /** The longest a synchronous call waits for its completion. */
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Prepares the one SQE of a synchronous call. */
    interface SyncSqe {
        /**
         * @param sq       the loop's SQ, with a slot reserved
         * @param userData the SQE's user_data
         */
        void prepare(SubmissionQueue sq, long userData);
    }

    private final RingwireIoHandler loop;
    private final IoUring ring;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final RingwireCounters counters;
    private final Scratch scratch;
    /** Native memory for synchronous calls' arguments and results (an option's value, a sockaddr and its length). */
    private final MemorySegment area;
    private int nextSyncId;

    /**
     * Completions taken out of the CQ by a synchronous call that found no room there for its own ({@link
     * #makeRoomInCq}): handed to the dispatch next, in their order, before any completion still in the CQ; empty but
     * then. A call made by a completion handler takes the CQEs of the batch that come after the one being handled,
     * and the batch goes on with them.
     */
    private long[] stashedUserData = new long[0];
    private int[] stashedRes = new int[0];
    private int[] stashedFlags = new int[0];
    private int stashed;
    /** Stashed completions handed to the dispatch so far, while {@link #dispatchStashed()} runs; else 0. */
    private int stashedHandedOut;
    private final CompletionHandler stasher = this::stash;

    /**
     * @param area {@link #AREA_BYTES} bytes of native memory for the calls' arguments and results
     */
    SyncCalls(RingwireIoHandler loop, IoUring ring, RingwireCounters counters, Scratch scratch, MemorySegment area) {
        this.loop = loop;
        this.ring = ring;
        this.sq = ring.sq();
        this.cq = ring.cq();
        this.counters = counters;
        this.scratch = scratch;
        this.area = area;
    }

    /** @return native memory for one synchronous call's arguments ({@value #AREA_BYTES} bytes), on the loop */
    MemorySegment area() {
        return area;
    }

    /** @return completions stashed and not handed to the dispatch yet (and those handed out, while it runs) */
    int stashed() {
        return stashed;
    }

    private void stash(long userData, int res, int flags) {
        if (stashed == stashedUserData.length) {
            int n = Math.max(64, stashed * 2);
            stashedUserData = java.util.Arrays.copyOf(stashedUserData, n);
            stashedRes = java.util.Arrays.copyOf(stashedRes, n);
            stashedFlags = java.util.Arrays.copyOf(stashedFlags, n);
        }
        stashedUserData[stashed] = userData;
        stashedRes[stashed] = res;
        stashedFlags[stashed] = flags;
        stashed++;
    }

    /**
     * @param from the first stashed completion to look at
     * @return the result of {@code userData}'s completion if it was stashed, else {@link Integer#MIN_VALUE}
     */
    private int stashedResult(long userData, int from) {
        for (int i = stashed - 1; i >= from; i--) {
            if (stashedUserData[i] == userData) {
                return stashedRes[i];
            }
        }
        return Integer.MIN_VALUE;
    }

    /**
     * @return the result of {@code userData}'s op if its completion is stashed and not handed to the dispatch yet,
     *         else {@link Integer#MIN_VALUE}; a zero-copy send's notification does not count
     */
    int stashedNotHandedOut(long userData) {
        for (int i = stashedHandedOut; i < stashed; i++) {
            if (stashedUserData[i] == userData && (stashedFlags[i] & IoUringConstants.IORING_CQE_F_NOTIF) == 0) {
                return stashedRes[i];
            }
        }
        return Integer.MIN_VALUE;
    }

    /**
     * Hands the stashed completions to the loop's dispatch, oldest first; those a synchronous call stashes meanwhile
     * (a completion handler's, finding the CQ full again) are appended, and handed out in the same pass.
     *
     * @return how many it handed out
     */
    int dispatchStashed() {
        int i = 0;
        while (i < stashed) {
            stashedHandedOut = ++i;
            loop.dispatch(stashedUserData[i - 1], stashedRes[i - 1], stashedFlags[i - 1]);
        }
        stashed = 0;
        stashedHandedOut = 0;
        return i;
    }

    /**
     * @return whether a completion posted now would not land in the CQ: it is full, or completions wait on the
     *         kernel's overflow list, which every new one joins, to keep their order
     */
    private boolean cqHasNoRoom() {
        return cq.ready() >= cq.entries() || (sq.kernelFlags() & IoUringConstants.IORING_SQ_CQ_OVERFLOW) != 0;
    }

    /**
     * Takes every completion the dispatch has not handed out yet into the stash and frees their CQ slots; the batch
     * being handed out, if any, stops after the completion being handled and goes on with the stash. The next enter
     * with GETEVENTS moves the kernel's overflow list into the CQ, in order, behind them.
     */
    private void makeRoomInCq() {
        cq.handOver(stasher);
    }

    /**
     * One SQE submitted now and its result waited for: a socket option, an address, an fd for a call, on a direct
     * descriptor. Everything queued before it leaves in the same enter; completions of other operations stay in the
     * CQ, or in the stash, for the loop's dispatch, in their order (this one's is passed over there). The operations
     * used complete while the enter submits them, so it asks for no other completions; only if this one is not there
     * does it wait. When the CQ has no room for it, even in the middle of a batch being handed out, the completions
     * not handed out yet move to the stash first ({@link #makeRoomInCq}). Once its SQE is queued the call returns only
     * with its result: its operation has run, or failed, and the caller handles what it did. One that takes over 10
     * s is cancelled (ASYNC_CANCEL), and its result, the operation's or -ECANCELED, waited for. On the loop only;
     * counted in {@link RingwireCounters#syncEnters()}.
     *
     * @param opcode the SQE's opcode
     * @param prep   writes the SQE
     * @return its result, or {@code -errno}; {@code -EBADF} once the ring is closed (its table, and every socket
     *         in it, went with it)
     * @throws IllegalStateException if the SQ refuses (the operation has not run)
     */
    int call(byte opcode, SyncSqe prep) {
        if (ring.isClosed()) {
            // (at the end of destroy(): a channel whose registration fails afterwards still closes, and flushes)
            return -Errno.EBADF;
        }
        if (!sq.tryReserve()) {
            counters.sqRefusals++;
            throw new IllegalStateException("the io_uring submission queue is full and the kernel took nothing; "
                + "try again after this iteration");
        }
        long userData = UserData.encode(UserData.HANDLER_ID, opcode, SYNC | (nextSyncId++ & (SYNC - 1)));
        prep.prepare(sq, userData);
        long entersBefore = ring.enterCount();
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        boolean cancelled = false;
        try {
            // submitted without GETEVENTS: the operations used complete while the enter submits them, and no other
            // completion work runs. With GETEVENTS a listener's multishot ACCEPT would take every connection waiting,
            // and during an accept burst each connection's first options would bring in more completions than the
            // loop hands out, until the CQ is full and the next synchronous call finds no room for its completion
            if (cqHasNoRoom()) {
                makeRoomInCq();
            }
            ring.submit();
            for (;;) {
                int res = cq.newestPostedResult(userData); // (completed as submitted: at the tail)
                if (res != Integer.MIN_VALUE) {
                    return res;
                }
                if (cqHasNoRoom()) {
                    // full again, or this completion went to the overflow list: every completion not handed out is
                    // stashed, and an enter with GETEVENTS moves the overflow in (this one with it, or a CQ's worth
                    // of those before it: then again)
                    int from = stashed; // (only a completion posted after the submit can be this one)
                    makeRoomInCq();
                    res = stashedResult(userData, from);
                    if (res != Integer.MIN_VALUE) {
                        return res;
                    }
                    ring.submitAndWait(0, -1);
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 && !cancelled && loop.reserveSqe()) {
                    // still not completed: cancelled, so that it either ran (its result comes) or did nothing
                    cancelled = true;
                    sq.prepCancel(userData, 0, UserData.encode(UserData.HANDLER_ID, IORING_OP_ASYNC_CANCEL, 0));
                    logger.warn("{}: a synchronous {} has not completed in 10 s; cancelled, waiting for its result",
                        loop.executor(), IoUringConstants.opName(opcode));
                }
                // one more completion than the CQ holds now: not a wake-up for each of the others
                ring.submitAndWait(cq.ready() + 1, TimeUnit.MILLISECONDS.toNanos(100));
            }
        } finally {
            counters.syncEnters += ring.enterCount() - entersBefore;
            scratch.reuseIfSubmitted(); // the kernel has copied what queued SQEs pointed at
        }
    }

    /**
     * A regular fd for the socket in {@code slot} (FIXED_FD_INSTALL), for a call that needs one; the caller closes
     * it at once. Counted in {@link RingwireCounters#fdInstalls()}.
     *
     * @return the fd
     * @throws NativeIoException e.g. EMFILE
     */
    int installFd(int slot) throws NativeIoException {
        int fd = call(IoUringConstants.IORING_OP_FIXED_FD_INSTALL, (q, ud) -> q.prepFixedFdInstall(slot, 0, ud));
        NativeIoException.check(fd, "FIXED_FD_INSTALL");
        counters.fdInstalls++;
        return fd;
    }
}
