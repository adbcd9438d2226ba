package io.ringwire.transport;

import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.SubmissionQueue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Direct descriptors passing between loops: a channel that changes loops takes its socket from one ring's fixed-file
 * table to the other's (MSG_RING with SEND_FD), and the receiving ring's fd must name that ring until the kernel has
 * taken every MSG_RING naming it. The sending and receiving sides of one loop; on the loop only, but for the count of
 * moves into it, which other loops keep.
 */
final class SlotMoves {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SlotMoves.class);

    /** user_data data bit of a MSG_RING this loop sent (clear: a slot arriving from another loop). */
    private static final int SENT = 1 << 23;

    /** A move of a direct descriptor waiting for room in the SQ ({@link #sendSlot}'s arguments). */
    private record DeferredSend(int slot, RingwireIoHandler target, long targetUserData, IntConsumer sent) { }

    private final RingwireIoHandler loop;
    private final IoUring ring;
    private final SubmissionQueue sq;
    private final FixedFileTable table;
    private final RingwireCounters counters;
    /** Moves of direct descriptors that found the SQ refusing: tried again next iteration. */
    private final List<DeferredSend> deferredSends = new ArrayList<>();
    /** Slots moving in from another loop (MSG_RING), by the id in their target user_data: what to do on arrival. */
    private final IntObjectHashMap<IntConsumer> slotsExpected = new IntObjectHashMap<>();
    /** Slots sent to another loop whose MSG_RING has not completed here, by sequence: what to do then. */
    private final IntObjectHashMap<IntConsumer> slotsSent = new IntObjectHashMap<>();
    private int nextTransferId;
    /**
     * Moves into this loop's ring that another loop is issuing (their MSG_RING names this ring's fd) whose
     * completion that loop has not had yet; the ring is closed only once none is left, so that the fd number names
     * this ring until the kernel has taken every MSG_RING that names it.
     */
    private final AtomicInteger movesIn = new AtomicInteger();
    /** The ring is about to close: no move may name its fd any more. */
    private volatile boolean ringClosing;

    SlotMoves(RingwireIoHandler loop, IoUring ring, FixedFileTable table, RingwireCounters counters) {
        this.loop = loop;
        this.ring = ring;
        this.sq = ring.sq();
        this.table = table;
        this.counters = counters;
    }

    /**
     * Expects a direct descriptor from another loop (MSG_RING); on this loop.
     *
     * @param arrival called on this loop with the slot it got here, or {@code -errno} if the move failed
     * @return the user_data the sender's MSG_RING gives this loop's CQE
     */
    long expectSlot(IntConsumer arrival) {
        int id;
        do {
            id = nextTransferId++ & (SENT - 1);
        } while (slotsExpected.containsKey(id));
        slotsExpected.put(id, arrival);
        return UserData.encode(UserData.HANDLER_ID, IoUringConstants.IORING_OP_MSG_RING, id);
    }

    /**
     * A move expected with {@link #expectSlot} failed on the sending loop (no CQE comes here).
     *
     * @param targetUserData what {@link #expectSlot} returned
     * @param errno          {@code -errno}
     */
    void slotNotComing(long targetUserData, int errno) {
        IntConsumer arrival = slotsExpected.remove(UserData.data(targetUserData));
        if (arrival != null) {
            arrival.accept(errno);
        }
    }

    /**
     * Moves the direct descriptor in {@code slot} to {@code target}'s table (MSG_RING with SEND_FD); this loop's
     * slot is emptied once the MSG_RING completes, whatever its result. On this loop.
     *
     * @param targetUserData what {@code target}'s {@link #expectSlot} returned
     * @param sent           called on this loop with the MSG_RING's result (the target's slot, or {@code -errno})
     */
    void sendSlot(int slot, RingwireIoHandler target, long targetUserData, IntConsumer sent) {
        if (!loop.reserveSqe()) {
            deferredSends.add(new DeferredSend(slot, target, targetUserData, sent)); // tried next iteration
            return;
        }
        SlotMoves to = target.slotMoves();
        if (!to.beginMoveIn()) {
            // the target's ring is closing or closed: its fd number may name another ring by now, which would take
            // the socket, and answer an expectation of its own with it
            table.closeSlot(slot);
            sent.accept(-Errno.EBADF);
            return;
        }
        int seq;
        do {
            seq = nextTransferId++ & (SENT - 1);
        } while (slotsSent.containsKey(seq));
        slotsSent.put(seq, res -> {
            to.endMoveIn();
            table.closeSlot(slot);
            sent.accept(res);
        });
        sq.prepMsgRingFd(to.ring.fd(), slot, targetUserData,
            UserData.encode(UserData.HANDLER_ID, IoUringConstants.IORING_OP_MSG_RING, SENT | seq));
        counters.msgRingTransfers++;
    }

    /** @return whether moves wait for room in the SQ (see {@link #retryDeferredSends}) */
    boolean hasDeferredSends() {
        return !deferredSends.isEmpty();
    }

    /** @return whether MSG_RINGs this loop sent have not completed yet */
    boolean sendsInFlight() {
        return !slotsSent.isEmpty();
    }

    /** Moves of direct descriptors that waited for room in the SQ, tried again (queued again if it still refuses). */
    void retryDeferredSends() {
        List<DeferredSend> sends = new ArrayList<>(deferredSends);
        deferredSends.clear();
        for (DeferredSend d : sends) {
            sendSlot(d.slot(), d.target(), d.targetUserData(), d.sent());
        }
    }

    /**
     * A MSG_RING completion on this loop: one it sent (the move ended), or a slot arriving from another loop.
     *
     * @param data the user_data's data
     * @param res  the CQE's result
     */
    void completed(int data, int res) {
        IntConsumer then = (data & SENT) != 0 ? slotsSent.remove(data & (SENT - 1)) : slotsExpected.remove(data);
        if ((data & SENT) == 0 && res >= 0) {
            table.slotTaken();
        }
        if (then != null) {
            try {
                then.accept(res);
            } catch (Throwable t) {
                loop.handlerFailed("moving a direct descriptor", loop, t);
            }
        } else if ((data & SENT) == 0 && res >= 0) {
            table.closeSlot(res); // its channel is gone (the loop shut down meanwhile): nobody else will
        }
    }

    /**
     * On the sending loop, before it queues a MSG_RING naming this ring's fd.
     *
     * @return false when this ring is closing or closed: the move must not be sent
     */
    private boolean beginMoveIn() {
        movesIn.incrementAndGet();
        if (ringClosing) {
            movesIn.decrementAndGet();
            return false;
        }
        return true;
    }

    /** On the sending loop, once its MSG_RING to this ring has completed, or will never be issued. */
    private void endMoveIn() {
        movesIn.decrementAndGet();
    }

    /**
     * On shutdown: no loop sends a move here from now on (see {@link #closeToMovesIn}), and the slots still expected
     * from other loops will not come: their channels' registrations fail.
     */
    void stopExpecting() {
        ringClosing = true;
        for (IntConsumer arrival : new ArrayList<>(slotsExpected.values())) {
            try {
                arrival.accept(-Errno.ECANCELED);
            } catch (RuntimeException e) {
                logger.debug("failing a move to {} on shutdown", loop.executor(), e);
            }
        }
        slotsExpected.clear();
    }

    /**
     * No more moves into this ring, and waits (bounded) for those being issued by other loops: called just before
     * the ring closes. A MSG_RING's CQE comes to its sender once the kernel has found the target ring by its fd.
     */
    void closeToMovesIn() {
        ringClosing = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (movesIn.get() > 0 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (movesIn.get() > 0) {
            logger.warn("{}: closing its ring with {} move(s) of direct descriptors into it not completed on their "
                + "sending loops", loop.executor(), movesIn.get());
        }
    }

    /**
     * On shutdown, after the last completions: moves this loop sent that will never complete here (not sent, or no
     * completion came) are failed, so that their channels' registrations on the receiving loops complete.
     */
    void failPendingSends() {
        for (DeferredSend d : deferredSends) {
            try {
                d.sent().accept(-Errno.ECANCELED); // (its slot goes with this loop's table)
            } catch (RuntimeException e) {
                logger.debug("failing a move from {} on shutdown", loop.executor(), e);
            }
        }
        deferredSends.clear();
        for (IntConsumer then : new ArrayList<>(slotsSent.values())) {
            try {
                then.accept(-Errno.ECANCELED);
            } catch (RuntimeException e) {
                logger.debug("failing a move from {} on shutdown", loop.executor(), e);
            }
        }
        slotsSent.clear();
    }
}
