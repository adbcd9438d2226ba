package io.ringwire.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code struct io_uring_cqe} (16 bytes; 32 with {@code IORING_SETUP_CQE32}, which Ringwire does not use).
 *
 * <pre>
 * struct io_uring_cqe {
 *     __u64 user_data;  // 0  sqe->user_data, passed back untouched
 *     __s32 res;        // 8  result, or -errno
 *     __u32 flags;      // 12 IORING_CQE_F_*; buffer id in the upper 16 bits with F_BUFFER
 * };
 * </pre>
 */
public final class IoUringCqe {
    private IoUringCqe() { }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_LONG.withName("user_data"),
        JAVA_INT.withName("res"),
        JAVA_INT.withName("flags")).withName("io_uring_cqe");

    public static final int SIZE = 16;
    public static final int USER_DATA_OFFSET = 0;
    public static final int RES_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;

    /**
     * The provided-buffer id a CQE names.
     *
     * @param cqeFlags the CQE's flags, with {@link IoUringConstants#IORING_CQE_F_BUFFER} set
     * @return the buffer id, 0..65535
     */
    public static int bufferId(int cqeFlags) {
        return cqeFlags >>> IoUringConstants.IORING_CQE_BUFFER_SHIFT;
    }

    /**
     * @param cqeFlags the CQE's flags
     * @return whether a multishot request is still armed after this CQE
     */
    public static boolean hasMore(int cqeFlags) {
        return (cqeFlags & IoUringConstants.IORING_CQE_F_MORE) != 0;
    }

    /**
     * @param cqeFlags the CQE's flags
     * @return whether the CQE carries a provided buffer
     */
    public static boolean hasBuffer(int cqeFlags) {
        return (cqeFlags & IoUringConstants.IORING_CQE_F_BUFFER) != 0;
    }
}
