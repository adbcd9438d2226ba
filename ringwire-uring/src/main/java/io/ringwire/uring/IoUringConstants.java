package io.ringwire.uring;

/**
 * Every constant Ringwire copies from {@code include/uapi/linux/io_uring.h}, spelled as the header spells it.
 *
 * <p>The bracketed number after each constant is the kernel release that added it; a feature is usable only on that
 * release or later (and {@link IoUringProbe} checks the ones that matter at run time rather than trusting the version).
 * Values are those of Linux 6.18 (checked against liburing's copy of the header, {@code src/include/liburing/io_uring.h}
 * at commit 27255f4, which mirrors the uapi header). This machine's own {@code /usr/include/linux/io_uring.h} is from
 * 6.1; everything newer than that is marked "not in 6.1 headers".
 *
 * <p>Struct layouts live beside the structs: {@link IoUringSqe}, {@link IoUringCqe}, {@link IoUringParams},
 * {@link BufferRing} (the ring of provided buffers), {@link KernelTimespec}.
 */
public final class IoUringConstants {
    private IoUringConstants() { }

    // ---------------------------------------------------------------- syscalls (arch/x86/entry/syscalls/syscall_64.tbl)
    /** {@code io_uring_setup(entries, params)} [5.1]. */
    public static final int SYS_IO_URING_SETUP = 425;
    /** {@code io_uring_enter(fd, to_submit, min_complete, flags, argp, argsz)} [5.1]. */
    public static final int SYS_IO_URING_ENTER = 426;
    /** {@code io_uring_register(fd, opcode, arg, nr_args)} [5.1]. */
    public static final int SYS_IO_URING_REGISTER = 427;

    // ---------------------------------------------------------------- enum io_uring_op (sqe->opcode)
    public static final byte IORING_OP_NOP = 0;              // [5.1]
    public static final byte IORING_OP_READV = 1;            // [5.1]
    public static final byte IORING_OP_WRITEV = 2;           // [5.1]
    public static final byte IORING_OP_POLL_ADD = 6;         // [5.1]
    public static final byte IORING_OP_POLL_REMOVE = 7;      // [5.1]
    public static final byte IORING_OP_SENDMSG = 9;          // [5.3]
    public static final byte IORING_OP_RECVMSG = 10;         // [5.3]
    public static final byte IORING_OP_TIMEOUT = 11;         // [5.4]
    public static final byte IORING_OP_TIMEOUT_REMOVE = 12;  // [5.5]
    public static final byte IORING_OP_ACCEPT = 13;          // [5.5]
    public static final byte IORING_OP_ASYNC_CANCEL = 14;    // [5.5]
    public static final byte IORING_OP_LINK_TIMEOUT = 15;    // [5.5]
    public static final byte IORING_OP_CONNECT = 16;         // [5.5]
    public static final byte IORING_OP_CLOSE = 19;           // [5.6]
    public static final byte IORING_OP_FILES_UPDATE = 20;    // [5.6]
    public static final byte IORING_OP_READ = 22;            // [5.6]
    public static final byte IORING_OP_WRITE = 23;           // [5.6]
    public static final byte IORING_OP_SEND = 26;            // [5.6]
    public static final byte IORING_OP_RECV = 27;            // [5.6]
    public static final byte IORING_OP_SPLICE = 30;          // [5.7]
    public static final byte IORING_OP_PROVIDE_BUFFERS = 31; // [5.7]
    public static final byte IORING_OP_REMOVE_BUFFERS = 32;  // [5.7]
    public static final byte IORING_OP_SHUTDOWN = 34;        // [5.11]
    public static final byte IORING_OP_MSG_RING = 40;        // [5.18]
    public static final byte IORING_OP_SOCKET = 45;          // [5.19]
    public static final byte IORING_OP_URING_CMD = 46;       // [5.19]
    public static final byte IORING_OP_SEND_ZC = 47;         // [6.0]
    public static final byte IORING_OP_SENDMSG_ZC = 48;      // [6.1]
    public static final byte IORING_OP_READ_MULTISHOT = 49;  // [6.7] not in 6.1 headers
    public static final byte IORING_OP_FIXED_FD_INSTALL = 54; // [6.8] not in 6.1 headers
    public static final byte IORING_OP_BIND = 56;            // [6.11] not in 6.1 headers
    public static final byte IORING_OP_LISTEN = 57;          // [6.11] not in 6.1 headers
    public static final byte IORING_OP_RECV_ZC = 58;         // [6.15] not in 6.1 headers
    public static final byte IORING_OP_EPOLL_WAIT = 59;      // [6.15] not in 6.1 headers
    public static final byte IORING_OP_PIPE = 62;            // [6.16] not in 6.1 headers

    // ---------------------------------------------------------------- sqe->flags (IOSQE_*)
    public static final byte IOSQE_FIXED_FILE = 1;           // [5.1]
    public static final byte IOSQE_IO_DRAIN = 2;             // [5.2]
    public static final byte IOSQE_IO_LINK = 4;              // [5.3]
    public static final byte IOSQE_IO_HARDLINK = 8;          // [5.5]
    /** Forces the request to the io-wq thread pool. Ringwire never sets it unless a user asks. [5.6] */
    public static final byte IOSQE_ASYNC = 16;
    public static final byte IOSQE_BUFFER_SELECT = 32;       // [5.7]
    public static final byte IOSQE_CQE_SKIP_SUCCESS = 64;    // [5.17]

    // ---------------------------------------------------------------- sqe->ioprio for SEND/RECV/SENDMSG/RECVMSG
    public static final short IORING_RECVSEND_POLL_FIRST = 1;      // [5.19]
    public static final short IORING_RECV_MULTISHOT = 2;           // [6.0]
    public static final short IORING_RECVSEND_FIXED_BUF = 4;       // [6.0]
    public static final short IORING_SEND_ZC_REPORT_USAGE = 8;     // [6.2]
    public static final short IORING_RECVSEND_BUNDLE = 16;         // [6.10] not in 6.1 headers
    public static final short IORING_SEND_VECTORIZED = 32;         // [6.17] not in 6.1 headers

    // ---------------------------------------------------------------- sqe->ioprio for ACCEPT
    public static final short IORING_ACCEPT_MULTISHOT = 1;         // [5.19]
    public static final short IORING_ACCEPT_DONTWAIT = 2;          // [6.10] not in 6.1 headers
    public static final short IORING_ACCEPT_POLL_FIRST = 4;        // [6.10] not in 6.1 headers

    /** sqe->file_index: let the kernel pick a free direct-descriptor slot. [5.19] */
    public static final int IORING_FILE_INDEX_ALLOC = 0xFFFFFFFF;

    // ---------------------------------------------------------------- sqe->timeout_flags
    public static final int IORING_TIMEOUT_ABS = 1;                // [5.5]
    public static final int IORING_TIMEOUT_UPDATE = 2;             // [5.11]
    public static final int IORING_TIMEOUT_BOOTTIME = 4;           // [5.15]
    public static final int IORING_TIMEOUT_REALTIME = 8;           // [5.15]
    public static final int IORING_LINK_TIMEOUT_UPDATE = 16;       // [5.15]
    public static final int IORING_TIMEOUT_ETIME_SUCCESS = 32;     // [5.16]
    public static final int IORING_TIMEOUT_MULTISHOT = 64;         // [6.4]

    // ---------------------------------------------------------------- sqe->cancel_flags (ASYNC_CANCEL)
    public static final int IORING_ASYNC_CANCEL_ALL = 1;           // [5.19]
    public static final int IORING_ASYNC_CANCEL_FD = 2;            // [5.19]
    public static final int IORING_ASYNC_CANCEL_ANY = 4;           // [5.19]
    public static final int IORING_ASYNC_CANCEL_FD_FIXED = 8;      // [6.0]

    // ---------------------------------------------------------------- sqe->len for POLL_ADD (poll flags)
    public static final int IORING_POLL_ADD_MULTI = 1;             // [5.13]
    public static final int IORING_POLL_UPDATE_EVENTS = 2;         // [5.13]
    public static final int IORING_POLL_UPDATE_USER_DATA = 4;      // [5.13]
    public static final int IORING_POLL_ADD_LEVEL = 8;             // [6.0]

    /** sqe->addr for MSG_RING: post a CQE with the given user_data and res on the target ring. [5.18] */
    public static final long IORING_MSG_DATA = 0;
    /**
     * sqe->addr for MSG_RING: put the file in this ring's fixed-file slot {@code addr3} into the target ring's table
     * too, at {@code file_index} (a slot + 1, or {@link #IORING_FILE_INDEX_ALLOC}); the target gets a CQE whose res is
     * the slot it allocated. [6.0]
     */
    public static final long IORING_MSG_SEND_FD = 1;
    /** sqe->msg_ring_flags: post no CQE on the target ring. [6.0] */
    public static final int IORING_MSG_RING_CQE_SKIP = 1;
    /** sqe->msg_ring_flags: the target CQE's flags are sqe->file_index. [6.3] */
    public static final int IORING_MSG_RING_FLAGS_PASS = 1 << 1;

    /** sqe->install_fd_flags of FIXED_FD_INSTALL: the new fd is not close-on-exec. [6.8] */
    public static final int IORING_FIXED_FD_NO_CLOEXEC = 1;

    // ---------------------------------------------------------------- URING_CMD on a socket (sqe->cmd_op)
    public static final int SOCKET_URING_OP_SIOCINQ = 0;           // [6.7]
    public static final int SOCKET_URING_OP_SIOCOUTQ = 1;          // [6.7]
    /** getsockopt, SOL_SOCKET level only (any other: EOPNOTSUPP); res = optlen. [6.7] */
    public static final int SOCKET_URING_OP_GETSOCKOPT = 2;
    /** setsockopt, any level. [6.7] */
    public static final int SOCKET_URING_OP_SETSOCKOPT = 3;
    public static final int SOCKET_URING_OP_TX_TIMESTAMP = 4;      // [6.17]
    /** getsockname (optlen 0) or getpeername (optlen 1); addr = sockaddr, addr3 = its int length. [6.19] */
    public static final int SOCKET_URING_OP_GETSOCKNAME = 5;

    // ---------------------------------------------------------------- cqe->flags (IORING_CQE_F_*)
    public static final int IORING_CQE_F_BUFFER = 1;               // [5.7] upper 16 bits carry the buffer id
    public static final int IORING_CQE_F_MORE = 2;                 // [5.13] a multishot request stays armed
    public static final int IORING_CQE_F_SOCK_NONEMPTY = 4;        // [5.19]
    public static final int IORING_CQE_F_NOTIF = 8;                // [6.0] SEND_ZC notification
    public static final int IORING_CQE_F_BUF_MORE = 16;            // [6.12] not in 6.1 headers; incremental buffer not used up
    /** cqe->flags bits above this shift hold the provided-buffer id. */
    public static final int IORING_CQE_BUFFER_SHIFT = 16;          // [5.7]
    /** Notification res bit for SEND_ZC with REPORT_USAGE: the kernel copied instead of zero-copy. [6.2] */
    public static final int IORING_NOTIF_USAGE_ZC_COPIED = 1 << 31;

    // ---------------------------------------------------------------- io_uring_params.flags (IORING_SETUP_*)
    public static final int IORING_SETUP_IOPOLL = 1;               // [5.1]
    public static final int IORING_SETUP_SQPOLL = 1 << 1;          // [5.1]
    public static final int IORING_SETUP_SQ_AFF = 1 << 2;          // [5.1]
    public static final int IORING_SETUP_CQSIZE = 1 << 3;          // [5.5]
    public static final int IORING_SETUP_CLAMP = 1 << 4;           // [5.6]
    public static final int IORING_SETUP_ATTACH_WQ = 1 << 5;       // [5.6]
    public static final int IORING_SETUP_R_DISABLED = 1 << 6;      // [5.10]
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;      // [5.18]
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;    // [5.19]
    public static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;    // [5.19]
    public static final int IORING_SETUP_SQE128 = 1 << 10;         // [5.19]
    public static final int IORING_SETUP_CQE32 = 1 << 11;          // [5.19]
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;  // [6.0]
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;  // [6.1]
    public static final int IORING_SETUP_NO_MMAP = 1 << 14;        // [6.5] not in 6.1 headers
    public static final int IORING_SETUP_REGISTERED_FD_ONLY = 1 << 15; // [6.5] not in 6.1 headers
    public static final int IORING_SETUP_NO_SQARRAY = 1 << 16;     // [6.6] not in 6.1 headers
    public static final int IORING_SETUP_HYBRID_IOPOLL = 1 << 17;  // [6.13] not in 6.1 headers
    public static final int IORING_SETUP_CQE_MIXED = 1 << 18;      // [6.18] not in 6.1 headers

    // ---------------------------------------------------------------- sq_ring->flags
    public static final int IORING_SQ_NEED_WAKEUP = 1;             // [5.1]
    public static final int IORING_SQ_CQ_OVERFLOW = 2;             // [5.8]
    public static final int IORING_SQ_TASKRUN = 4;                 // [5.19]

    // ---------------------------------------------------------------- io_uring_enter flags
    public static final int IORING_ENTER_GETEVENTS = 1;            // [5.1]
    public static final int IORING_ENTER_SQ_WAKEUP = 2;            // [5.1]
    public static final int IORING_ENTER_SQ_WAIT = 4;              // [5.10]
    public static final int IORING_ENTER_EXT_ARG = 8;              // [5.11]
    public static final int IORING_ENTER_REGISTERED_RING = 16;     // [5.18]
    public static final int IORING_ENTER_ABS_TIMER = 32;           // [6.12] not in 6.1 headers
    public static final int IORING_ENTER_EXT_ARG_REG = 64;         // [6.13] not in 6.1 headers
    public static final int IORING_ENTER_NO_IOWAIT = 128;          // [6.15] not in 6.1 headers

    // ---------------------------------------------------------------- io_uring_params.features (IORING_FEAT_*)
    public static final int IORING_FEAT_SINGLE_MMAP = 1;           // [5.4]
    public static final int IORING_FEAT_NODROP = 1 << 1;           // [5.5]
    public static final int IORING_FEAT_SUBMIT_STABLE = 1 << 2;    // [5.5]
    public static final int IORING_FEAT_RW_CUR_POS = 1 << 3;       // [5.6]
    public static final int IORING_FEAT_CUR_PERSONALITY = 1 << 4;  // [5.6]
    public static final int IORING_FEAT_FAST_POLL = 1 << 5;        // [5.7]
    public static final int IORING_FEAT_POLL_32BITS = 1 << 6;      // [5.9]
    public static final int IORING_FEAT_SQPOLL_NONFIXED = 1 << 7;  // [5.11]
    public static final int IORING_FEAT_EXT_ARG = 1 << 8;          // [5.11]
    public static final int IORING_FEAT_NATIVE_WORKERS = 1 << 9;   // [5.12]
    public static final int IORING_FEAT_RSRC_TAGS = 1 << 10;       // [5.13]
    public static final int IORING_FEAT_CQE_SKIP = 1 << 11;        // [5.17]
    public static final int IORING_FEAT_LINKED_FILE = 1 << 12;     // [5.17]
    public static final int IORING_FEAT_REG_REG_RING = 1 << 13;    // [6.3]
    public static final int IORING_FEAT_RECVSEND_BUNDLE = 1 << 14; // [6.10] not in 6.1 headers
    public static final int IORING_FEAT_MIN_TIMEOUT = 1 << 15;     // [6.12] not in 6.1 headers
    public static final int IORING_FEAT_RW_ATTR = 1 << 16;         // [6.13] not in 6.1 headers
    public static final int IORING_FEAT_NO_IOWAIT = 1 << 17;       // [6.15] not in 6.1 headers

    // ---------------------------------------------------------------- io_uring_register opcodes
    public static final int IORING_REGISTER_BUFFERS = 0;           // [5.1]
    public static final int IORING_UNREGISTER_BUFFERS = 1;         // [5.1]
    public static final int IORING_REGISTER_FILES = 2;             // [5.1]
    public static final int IORING_UNREGISTER_FILES = 3;           // [5.1]
    public static final int IORING_REGISTER_FILES_UPDATE = 6;      // [5.5]
    public static final int IORING_REGISTER_FILES2 = 13;           // [5.13]
    /** io_uring_rsrc_register.flags: an empty table of nr slots [5.19]. */
    public static final int IORING_RSRC_REGISTER_SPARSE = 1;
    public static final int IORING_REGISTER_EVENTFD = 4;           // [5.2]
    public static final int IORING_UNREGISTER_EVENTFD = 5;         // [5.2]
    public static final int IORING_REGISTER_PROBE = 8;             // [5.6]
    public static final int IORING_REGISTER_ENABLE_RINGS = 12;     // [5.10]
    public static final int IORING_REGISTER_IOWQ_MAX_WORKERS = 19; // [5.15]
    public static final int IORING_REGISTER_RING_FDS = 20;         // [5.18]
    public static final int IORING_UNREGISTER_RING_FDS = 21;       // [5.18]
    public static final int IORING_REGISTER_PBUF_RING = 22;        // [5.19]
    public static final int IORING_UNREGISTER_PBUF_RING = 23;      // [5.19]
    public static final int IORING_REGISTER_SYNC_CANCEL = 24;      // [6.0]
    /** The part of the fixed-file table the kernel allocates from (IORING_FILE_INDEX_ALLOC). [6.0] */
    public static final int IORING_REGISTER_FILE_ALLOC_RANGE = 25;
    public static final int IORING_REGISTER_PBUF_STATUS = 26;      // [6.8] not in 6.1 headers
    public static final int IORING_REGISTER_NAPI = 27;             // [6.9] not in 6.1 headers
    public static final int IORING_REGISTER_USE_REGISTERED_RING = 1 << 31; // [6.3] OR-ed into the opcode

    // ---------------------------------------------------------------- mmap offsets
    public static final long IORING_OFF_SQ_RING = 0L;              // [5.1]
    public static final long IORING_OFF_CQ_RING = 0x8000000L;      // [5.1]
    public static final long IORING_OFF_SQES = 0x10000000L;        // [5.1]
    public static final long IORING_OFF_PBUF_RING = 0x80000000L;   // [6.4]

    // ---------------------------------------------------------------- io_uring_buf_reg.flags
    public static final short IOU_PBUF_RING_MMAP = 1;              // [6.4]
    public static final short IOU_PBUF_RING_INC = 2;               // [6.12] not in 6.1 headers

    // ---------------------------------------------------------------- struct io_uring_probe_op.flags
    public static final short IO_URING_OP_SUPPORTED = 1;           // [5.6]

    /** The highest opcode this file names; {@link IoUringProbe} asks the kernel about 0..this. */
    public static final int IORING_OP_LAST_KNOWN = 62;

    /**
     * A human name for an opcode (the uapi name without {@code IORING_OP_}), for messages and the probe table.
     *
     * @param opcode an {@code IORING_OP_*} value
     * @return e.g. {@code "RECV"}, or {@code "OP_99"} for one this file does not name
     */
    public static String opName(int opcode) {
        return switch (opcode) {
            case IORING_OP_NOP -> "NOP";
            case IORING_OP_READV -> "READV";
            case IORING_OP_WRITEV -> "WRITEV";
            case IORING_OP_POLL_ADD -> "POLL_ADD";
            case IORING_OP_POLL_REMOVE -> "POLL_REMOVE";
            case IORING_OP_SENDMSG -> "SENDMSG";
            case IORING_OP_RECVMSG -> "RECVMSG";
            case IORING_OP_TIMEOUT -> "TIMEOUT";
            case IORING_OP_TIMEOUT_REMOVE -> "TIMEOUT_REMOVE";
            case IORING_OP_ACCEPT -> "ACCEPT";
            case IORING_OP_ASYNC_CANCEL -> "ASYNC_CANCEL";
            case IORING_OP_LINK_TIMEOUT -> "LINK_TIMEOUT";
            case IORING_OP_CONNECT -> "CONNECT";
            case IORING_OP_CLOSE -> "CLOSE";
            case IORING_OP_FILES_UPDATE -> "FILES_UPDATE";
            case IORING_OP_READ -> "READ";
            case IORING_OP_WRITE -> "WRITE";
            case IORING_OP_SEND -> "SEND";
            case IORING_OP_RECV -> "RECV";
            case IORING_OP_SPLICE -> "SPLICE";
            case IORING_OP_PROVIDE_BUFFERS -> "PROVIDE_BUFFERS";
            case IORING_OP_REMOVE_BUFFERS -> "REMOVE_BUFFERS";
            case IORING_OP_SHUTDOWN -> "SHUTDOWN";
            case IORING_OP_MSG_RING -> "MSG_RING";
            case IORING_OP_SOCKET -> "SOCKET";
            case IORING_OP_URING_CMD -> "URING_CMD";
            case IORING_OP_SEND_ZC -> "SEND_ZC";
            case IORING_OP_SENDMSG_ZC -> "SENDMSG_ZC";
            case IORING_OP_READ_MULTISHOT -> "READ_MULTISHOT";
            case IORING_OP_FIXED_FD_INSTALL -> "FIXED_FD_INSTALL";
            case IORING_OP_BIND -> "BIND";
            case IORING_OP_LISTEN -> "LISTEN";
            case IORING_OP_RECV_ZC -> "RECV_ZC";
            case IORING_OP_EPOLL_WAIT -> "EPOLL_WAIT";
            case IORING_OP_PIPE -> "PIPE";
            default -> "OP_" + opcode;
        };
    }
}
