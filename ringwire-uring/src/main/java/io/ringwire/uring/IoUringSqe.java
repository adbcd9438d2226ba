package io.ringwire.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct io_uring_sqe} (64 bytes), the submission queue entry.
 *
 * <pre>
 * struct io_uring_sqe {
 *     __u8  opcode;        // 0   IORING_OP_*
 *     __u8  flags;         // 1   IOSQE_*
 *     __u16 ioprio;        // 2   also: recv/send/accept flags (IORING_RECV_MULTISHOT, ...)
 *     __s32 fd;            // 4
 *     union { __u64 off; __u64 addr2; ... };               // 8
 *     union { __u64 addr; __u64 splice_off_in; ... };      // 16
 *     __u32 len;           // 24
 *     union { __kernel_rwf_t rw_flags; __u32 msg_flags; __u32 timeout_flags; __u32 accept_flags;
 *             __u32 cancel_flags; __u32 poll32_events; ... };  // 28  ("op_flags" here)
 *     __u64 user_data;     // 32
 *     union { __u16 buf_index; __u16 buf_group; };         // 40
 *     __u16 personality;   // 42
 *     union { __s32 splice_fd_in; __u32 file_index; __u32 optlen; struct { __u16 addr_len; __u16 __pad3[1]; }; }; // 44
 *     union { struct { __u64 addr3; __u64 __pad2[1]; }; __u64 optval; __u8 cmd[0]; }; // 48
 * };
 * // URING_CMD on a socket: cmd_op (u32) at 8, level and optname (u32 each) at 16 and 20, optlen at 44
 * </pre>
 * Source: {@code include/uapi/linux/io_uring.h} (Linux 6.18).
 */
public final class IoUringSqe {
    private IoUringSqe() { }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_BYTE.withName("opcode"),
        JAVA_BYTE.withName("flags"),
        JAVA_SHORT.withName("ioprio"),
        JAVA_INT.withName("fd"),
        JAVA_LONG.withName("off"),
        JAVA_LONG.withName("addr"),
        JAVA_INT.withName("len"),
        JAVA_INT.withName("op_flags"),
        JAVA_LONG.withName("user_data"),
        JAVA_SHORT.withName("buf_index"),
        JAVA_SHORT.withName("personality"),
        JAVA_INT.withName("file_index"),
        JAVA_LONG.withName("addr3"),
        JAVA_LONG.withName("__pad2")).withName("io_uring_sqe");

    public static final int SIZE = 64;
    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int IOPRIO_OFFSET = 2;
    public static final int FD_OFFSET = 4;
    public static final int OFF_OFFSET = 8;
    public static final int ADDR_OFFSET = 16;
    public static final int LEN_OFFSET = 24;
    /** rw_flags, msg_flags, timeout_flags, accept_flags, cancel_flags, poll32_events, ... */
    public static final int OP_FLAGS_OFFSET = 28;
    public static final int USER_DATA_OFFSET = 32;
    /** buf_index or buf_group. */
    public static final int BUF_INDEX_OFFSET = 40;
    public static final int PERSONALITY_OFFSET = 42;
    /** file_index, splice_fd_in, addr_len. */
    public static final int FILE_INDEX_OFFSET = 44;
    public static final int ADDR3_OFFSET = 48;
    /** URING_CMD: cmd_op, in the low half of off. */
    public static final int CMD_OP_OFFSET = 8;
    /** URING_CMD socket options: level and optname, in addr's place. */
    public static final int LEVEL_OFFSET = 16;
    public static final int OPTNAME_OFFSET = 20;
    /** URING_CMD socket options: optlen in file_index's place, optval in addr3's. */
    public static final int OPTLEN_OFFSET = 44;
    public static final int OPTVAL_OFFSET = 48;
}
