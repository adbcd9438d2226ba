package io.ringwire.transport;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * An {@link IoHandle} that takes completions on Ringwire's fast path: one call per CQE with its fields, no event
 * object. Ringwire's channels implement it; any other {@link IoHandle} gets {@link RingwireIoEvent}s instead.
 */
interface RingwireIoHandle extends IoHandle {
    /**
     * One completion for this handle.
     *
     * @param opcode the SQE's {@code IORING_OP_*}
     * @param res    the result, or {@code -errno}
     * @param flags  {@code IORING_CQE_F_*}
     * @param data   the 24-bit data it was submitted with
     */
    void complete(byte opcode, int res, int flags, int data);

    /**
     * Called once, just before the loop's {@code io_uring_enter}, for a handle that asked with
     * {@link RingwireIoRegistration#prepareBeforeEnter()}: the place to gather a whole iteration's flushes into one
     * write SQE.
     */
    default void prepareBeforeEnter() { }

    /**
     * Called once after a batch of completions in which this handle asked with
     * {@link RingwireIoRegistration#notifyAfterCompletions()}: the place for {@code channelReadComplete}.
     */
    default void afterCompletions() { }

    /**
     * Closes the handle when its loop has stopped taking tasks (Netty skipped {@code prepareToDestroy()}, and the
     * loop is being destroyed): whatever a close would have run later must run now, on this thread.
     */
    default void closeOnStoppedLoop() throws Exception {
        close();
    }

    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        RingwireIoEvent e = (RingwireIoEvent) ioEvent;
        complete(e.opcode(), e.res(), e.flags(), e.data());
    }
}
