package io.ringwire.transport;

import io.netty.channel.IoOps;

/**
 * A raw SQE for {@link RingwireIoRegistration#submit(IoOps)}: the generic path for handles that are not Ringwire's
 * own channels (which prepare SQEs in place without allocating). Fields are named as in {@code struct io_uring_sqe}.
 *
 * @param opcode   {@code IORING_OP_*}
 * @param flags    {@code IOSQE_*}
 * @param ioprio   ioprio / send-recv-accept flags
 * @param fd       target descriptor
 * @param off      off / addr2
 * @param addr     addr
 * @param len      len
 * @param opFlags  msg_flags, timeout_flags, ...
 * @param bufIndex buf_index / buf_group
 * @param data     24 bits returned in the event's {@link RingwireIoEvent#data()}
 */
record RingwireIoOps(byte opcode, byte flags, short ioprio, int fd, long off, long addr, int len, int opFlags,
                            short bufIndex, int data) implements IoOps {
    public RingwireIoOps {
        if ((flags & io.ringwire.uring.IoUringConstants.IOSQE_ASYNC) != 0) {
            // a submission with it would wait on the kernel's io-wq worker threads; Ringwire never asks for that
            throw new IllegalArgumentException("IOSQE_ASYNC punts the request to io-wq threads: refused");
        }
        if ((data & ~UserData.DATA_MASK) != 0) {
            throw new IllegalArgumentException("data must fit in 24 bits: data=" + data);
        }
    }

    /**
     * @param data 24 bits returned in the event
     * @return a NOP
     */
    public static RingwireIoOps nop(int data) {
        return new RingwireIoOps(io.ringwire.uring.IoUringConstants.IORING_OP_NOP, (byte) 0, (short) 0, -1, 0, 0, 0,
            0, (short) 0, data);
    }
}
