package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The hand-written offsets agree with the named layouts, and the layouts with the uapi sizes. */
class StructLayoutTest {
    private static long offset(StructLayout layout, String... path) {
        PathElement[] p = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            p[i] = PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(p);
    }

    @Test
    void shouldMatchSqeLayout() {
        StructLayout l = IoUringSqe.LAYOUT;
        assertEquals(IoUringSqe.SIZE, l.byteSize());
        assertEquals(IoUringSqe.OPCODE_OFFSET, offset(l, "opcode"));
        assertEquals(IoUringSqe.FLAGS_OFFSET, offset(l, "flags"));
        assertEquals(IoUringSqe.IOPRIO_OFFSET, offset(l, "ioprio"));
        assertEquals(IoUringSqe.FD_OFFSET, offset(l, "fd"));
        assertEquals(IoUringSqe.OFF_OFFSET, offset(l, "off"));
        assertEquals(IoUringSqe.ADDR_OFFSET, offset(l, "addr"));
        assertEquals(IoUringSqe.LEN_OFFSET, offset(l, "len"));
        assertEquals(IoUringSqe.OP_FLAGS_OFFSET, offset(l, "op_flags"));
        assertEquals(IoUringSqe.USER_DATA_OFFSET, offset(l, "user_data"));
        assertEquals(IoUringSqe.BUF_INDEX_OFFSET, offset(l, "buf_index"));
        assertEquals(IoUringSqe.PERSONALITY_OFFSET, offset(l, "personality"));
        assertEquals(IoUringSqe.FILE_INDEX_OFFSET, offset(l, "file_index"));
        assertEquals(IoUringSqe.ADDR3_OFFSET, offset(l, "addr3"));
    }

    @Test
    void shouldMatchCqeLayout() {
        StructLayout l = IoUringCqe.LAYOUT;
        assertEquals(IoUringCqe.SIZE, l.byteSize());
        assertEquals(IoUringCqe.USER_DATA_OFFSET, offset(l, "user_data"));
        assertEquals(IoUringCqe.RES_OFFSET, offset(l, "res"));
        assertEquals(IoUringCqe.FLAGS_OFFSET, offset(l, "flags"));
        assertEquals(0xABCD, IoUringCqe.bufferId(0xABCD_0000 | IoUringConstants.IORING_CQE_F_BUFFER));
    }

    @Test
    void shouldMatchParamsLayout() {
        StructLayout l = IoUringParams.LAYOUT;
        assertEquals(IoUringParams.SIZE, l.byteSize());
        assertEquals(IoUringParams.FLAGS_OFFSET, offset(l, "flags"));
        assertEquals(IoUringParams.FEATURES_OFFSET, offset(l, "features"));
        assertEquals(IoUringParams.SQ_OFF, offset(l, "sq_off"));
        assertEquals(IoUringParams.CQ_OFF, offset(l, "cq_off"));
        assertEquals(IoUringParams.SQ_OFF_ARRAY, offset(IoUringParams.SQ_OFFSETS, "array"));
        assertEquals(IoUringParams.SQ_OFF_DROPPED, offset(IoUringParams.SQ_OFFSETS, "dropped"));
        assertEquals(IoUringParams.CQ_OFF_CQES, offset(IoUringParams.CQ_OFFSETS, "cqes"));
        assertEquals(IoUringParams.CQ_OFF_OVERFLOW, offset(IoUringParams.CQ_OFFSETS, "overflow"));
        assertEquals(40, IoUringParams.SQ_OFFSETS.byteSize());
    }

    @Test
    void shouldMatchSmallStructs() {
        assertEquals(KernelTimespec.SIZE, KernelTimespec.LAYOUT.byteSize());
        assertEquals(IoUringGeteventsArg.SIZE, IoUringGeteventsArg.LAYOUT.byteSize());
        assertEquals(IoUringGeteventsArg.TS_OFFSET, offset(IoUringGeteventsArg.LAYOUT, "ts"));
        assertEquals(IoUringGeteventsArg.MIN_WAIT_USEC_OFFSET, offset(IoUringGeteventsArg.LAYOUT, "min_wait_usec"));
    }
}
