package io.ringwire.transport;

import io.netty.channel.IoEvent;

/**
 * One completion as Netty's generic {@link IoEvent}, for {@link io.netty.channel.IoHandle}s that are not Ringwire's
 * own channels. The handler reuses one instance per loop: read it inside {@code handle(...)}, do not keep it.
 */
final class RingwireIoEvent implements IoEvent {
    private byte opcode;
    private int res;
    private int flags;
    private int data;

    void set(byte opcode, int res, int flags, int data) {
        this.opcode = opcode;
        this.res = res;
        this.flags = flags;
        this.data = data;
    }

    /** @return the SQE's {@code IORING_OP_*} */
    public byte opcode() {
        return opcode;
    }

    /** @return the CQE's res: a result or {@code -errno} */
    public int res() {
        return res;
    }

    /** @return the CQE's flags ({@code IORING_CQE_F_*}) */
    public int flags() {
        return flags;
    }

    /** @return the 24-bit data the op was submitted with */
    public int data() {
        return data;
    }

    @Override
    public String toString() {
        return "RingwireIoEvent[op=" + io.ringwire.uring.IoUringConstants.opName(opcode) + ", res=" + res
            + ", flags=0x" + Integer.toHexString(flags) + ", data=" + data + "]";
    }
}
