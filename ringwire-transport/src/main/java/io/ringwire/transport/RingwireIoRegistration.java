package io.ringwire.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.ringwire.uring.SubmissionQueue;

/**
 * One {@link IoHandle} registered with a {@link RingwireIoHandler}: its id in every user_data, and the count of its
 * operations the kernel still holds. A cancelled registration leaves the handler's table only when that count
 * reaches zero, so memory an in-flight SQE points at is never freed before its CQE ({@link IoHandle#unregistered()}
 * is the signal that it may be).
 *
 * <p>Every method must run on the event loop's thread.
 */
final class RingwireIoRegistration implements IoRegistration {
    private final RingwireIoHandler handler;
    private final IoHandle handle;
    private final RingwireIoHandle fastHandle;
    private final int id;
    private int inFlight;
    /** The SQ position of the SQE this registration prepared last ({@link SubmissionQueue#position()}). */
    private int preparedAt;
    private boolean cancelled;
    /** Runs once no operation of this registration is in flight (see {@link #runWhenIdle(Runnable)}). */
    private Runnable whenIdle;
    boolean beforeEnterRequested;
    boolean afterCompletionsRequested;
    boolean retryRequested;

    RingwireIoRegistration(RingwireIoHandler handler, IoHandle handle, int id) {
        this.handler = handler;
        this.handle = handle;
        this.fastHandle = handle instanceof RingwireIoHandle h ? h : null;
        this.id = id;
        this.preparedAt = handler.sq().position() - 1; // (none yet: consumed as soon as what is queued now is)
    }

    /** Records an SQE of this registration in its channel's trace; call only with {@link OpTrace#ON}. */
    private void traceSubmitted(byte opcode, int data) {
        if (handle instanceof AbstractRingwireChannel.RingwireUnsafe u) {
            u.opTrace().submitted(opcode, data);
        }
    }

    /** Records a CQE of this registration in its channel's trace; call only with {@link OpTrace#ON}. */
    void traceCompleted(byte opcode, int res, int flags, int data) {
        if (handle instanceof AbstractRingwireChannel.RingwireUnsafe u) {
            u.opTrace().completed(opcode, res, flags, data);
        }
    }

    /** @return the id in this registration's user_data */
    public int id() {
        return id;
    }

    /** @return the handler's submission queue, for preparing SQEs in place */
    public SubmissionQueue sq() {
        return handler.sq();
    }

    /** @return the handler this registration belongs to */
    public RingwireIoHandler handler() {
        return handler;
    }

    /**
     * Makes room for one SQE of this registration; call it before changing the state the SQE stands for.
     *
     * @return false if the SQ is full and io_uring_enter took nothing: leave everything as it was and ask again
     *         with {@link #retryNextIteration()}
     */
    public boolean reserveSqe() {
        return handler.reserveSqe();
    }

    /**
     * Asks for one {@link RingwireIoHandle#prepareBeforeEnter()} call in the next iteration, after its completions
     * have been reaped: the retry for an SQE that {@link #reserveSqe()} refused. A loop with retries waiting does not
     * sleep longer than a millisecond.
     */
    public void retryNextIteration() {
        if (!retryRequested) {
            retryRequested = true;
            handler.requestRetry(this);
        }
    }

    /**
     * The user_data for an op of this registration, counting it as in flight: call once per SQE prepared, after
     * {@link #reserveSqe()}.
     *
     * @param opcode the SQE's {@code IORING_OP_*}
     * @param data   24 bits
     * @return the user_data to put in the SQE
     */
    public long nextUserData(byte opcode, int data) {
        if (OpTrace.ON) {
            traceSubmitted(opcode, data);
        }
        inFlight++;
        preparedAt = handler.sq().position(); // (the SQE is prepared next, with this user_data)
        return UserData.encode(id, opcode, data);
    }

    /**
     * @return whether an SQE of this registration may still wait in the SQ: the kernel's SQ head has not passed the
     *         last one prepared (an enter that failed, EAGAIN say, consumed none)
     */
    boolean hasUnsubmittedSqe() {
        return !handler.sq().consumed(preparedAt);
    }

    /**
     * The user_data an op of this registration carries, without counting anything (for ASYNC_CANCEL targets).
     *
     * @param opcode the target's opcode
     * @param data   the target's data
     * @return the user_data
     */
    public long userData(byte opcode, int data) {
        return UserData.encode(id, opcode, data);
    }

    /** @return operations submitted whose final CQE has not arrived */
    public int inFlight() {
        return inFlight;
    }

    /** Asks for one {@link RingwireIoHandle#prepareBeforeEnter()} call before the next enter. */
    public void prepareBeforeEnter() {
        if (!beforeEnterRequested) {
            beforeEnterRequested = true;
            handler.requestBeforeEnter(this);
        }
    }

    /** Asks for one {@link RingwireIoHandle#afterCompletions()} call after the current batch of completions. */
    public void notifyAfterCompletions() {
        if (!afterCompletionsRequested) {
            afterCompletionsRequested = true;
            handler.requestAfterCompletions(this);
        }
    }

    RingwireIoHandle fastHandle() {
        return fastHandle;
    }

    IoHandle handle() {
        return handle;
    }

    /** A final CQE (no F_MORE) arrived; returns whether the registration is now finished. */
    boolean completed() {
        inFlight--;
        if (inFlight <= 0 && whenIdle != null) {
            Runnable r = whenIdle;
            whenIdle = null;
            r.run();
        }
        return cancelled && inFlight <= 0;
    }

    /**
     * Runs {@code task} on the loop once the kernel holds no operation of this registration (now, if it holds none):
     * for a close that must not run while an operation still holds a reference to the socket.
     */
    void runWhenIdle(Runnable task) {
        if (inFlight <= 0) {
            task.run();
        } else {
            whenIdle = task;
        }
    }

    /**
     * @return this registration itself: Netty hands out a wrapper around it, and this is how a channel reaches the
     *         fast path behind the wrapper
     */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T attachment() {
        return (T) this;
    }

    @Override
    public long submit(IoOps ops) {
        if (!(ops instanceof RingwireIoOps o)) {
            throw new IllegalArgumentException("expected RingwireIoOps, got " + (ops == null ? null : ops.getClass()));
        }
        if (cancelled) {
            return -1;
        }
        if (!reserveSqe()) {
            throw new IllegalStateException("the io_uring submission queue is full and the kernel took nothing: "
                + "try again after this iteration's completions");
        }
        long userData = nextUserData(o.opcode(), o.data());
        SubmissionQueue q = handler.sq();
        long sqe = q.prepRaw(o.opcode(), o.fd(), o.addr(), o.len(), o.off(), userData);
        q.addFlags(sqe, o.flags());
        q.addIoprio(sqe, o.ioprio());
        q.setOpFlags(sqe, o.opFlags());
        q.setBufIndex(sqe, o.bufIndex());
        return userData;
    }

    @Override
    public boolean isValid() {
        return !cancelled;
    }

    @Override
    public boolean cancel() {
        if (cancelled) {
            return false;
        }
        cancelled = true;
        if (inFlight <= 0) {
            handler.unregister(this);
        }
        return true;
    }

    @Override
    public String toString() {
        return "RingwireIoRegistration[id=" + id + ", inFlight=" + inFlight + ", cancelled=" + cancelled + "]";
    }
}
