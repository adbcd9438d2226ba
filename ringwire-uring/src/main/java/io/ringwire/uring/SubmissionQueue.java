package io.ringwire.uring;

import java.lang.foreign.MemorySegment;

import static io.ringwire.uring.IoUringConstants.*;
import static io.ringwire.uring.IoUringSqe.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The submission side of one ring: hands out SQE slots and fills them, one {@code prep*} method per opcode, named
 * after the liburing helper it mirrors. Nothing here allocates on the Java heap: an SQE is addressed by its byte
 * offset in the mmap-ed SQE array (a {@code long}), and every field is written in place.
 *
 * <p>Prepared SQEs become visible to the kernel only when {@link IoUring#submit} (or any enter) publishes the tail, so
 * everything prepared during one event-loop iteration leaves in one {@code io_uring_enter}. When the queue is full,
 * {@link #nextSqe()} submits what it holds first (as liburing's examples do) and counts that as an extra enter.
 *
 * <p>Not thread-safe: one ring, one owning thread.
 */
public final class SubmissionQueue {
    // C11 atomics used: kernel writes *khead (we read with acquire), we write *ktail (release, publishes the SQEs).
    private final IoUring ring;
    // addresses in the ring's mappings, which live as long as the ring: accessed through RawMemory (no checks)
    private final long khead;
    private final long ktail;
    private final long kflags;
    private final long kdropped;
    private final MemorySegment sqes;
    private final long sqesAddress;
    private final int mask;
    private final int entries;
    /** Tail including SQEs prepared but not yet published to the kernel. */
    private int tail;
    /** Tail last published to the kernel. */
    private int publishedTail;
    /**
     * The kernel's SQ head as {@link #tryReserve} last read it: a slot free then is free until the tail reaches it, so
     * the head is read again (with acquire: the kernel is done with an SQE it has moved past) only when the queue
     * looks full, not once per SQE.
     */
    private int knownHead;

    SubmissionQueue(IoUring ring, MemorySegment rings, MemorySegment params, MemorySegment sqes, boolean noSqArray) {
        this.ring = ring;
        int base = IoUringParams.SQ_OFF;
        long ringsAddress = rings.address();
        this.khead = ringsAddress + params.get(JAVA_INT, base + IoUringParams.SQ_OFF_HEAD);
        this.ktail = ringsAddress + params.get(JAVA_INT, base + IoUringParams.SQ_OFF_TAIL);
        this.kflags = ringsAddress + params.get(JAVA_INT, base + IoUringParams.SQ_OFF_FLAGS);
        this.kdropped = ringsAddress + params.get(JAVA_INT, base + IoUringParams.SQ_OFF_DROPPED);
        this.mask = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.SQ_OFF_RING_MASK));
        this.entries = rings.get(JAVA_INT, params.get(JAVA_INT, base + IoUringParams.SQ_OFF_RING_ENTRIES));
        this.sqes = sqes;
        this.sqesAddress = sqes.address();
        if (!noSqArray) {
            // The indirection array is the identity: slot i holds SQE i, set once here (as liburing does).
            long array = params.get(JAVA_INT, base + IoUringParams.SQ_OFF_ARRAY);
            for (int i = 0; i < entries; i++) {
                rings.set(JAVA_INT, array + 4L * i, i);
            }
        }
        this.tail = RawMemory.getIntAcquire(ktail);
        this.publishedTail = tail;
        this.knownHead = RawMemory.getIntAcquire(khead);
    }

    /** @return the number of SQE slots */
    public int entries() {
        return entries;
    }

    /** @return SQEs prepared since the last publish */
    public int pending() {
        return tail - publishedTail;
    }

    /** @return SQEs published or prepared that the kernel has not consumed yet (0 after a successful enter) */
    public int unconsumed() {
        return tail - RawMemory.getIntAcquire(khead);
    }

    /**
     * @return the position in the ring of the next SQE prepared: an SQE prepared at position {@code p} has been
     *         consumed by the kernel once {@link #consumed(int) consumed(p)} says so (positions wrap around)
     */
    public int position() {
        return tail;
    }

    /**
     * Whether the kernel has consumed the SQE at {@code position} ({@link #position()} when it was prepared): only
     * the SQ head it has moved past it says so. An enter that fails (EAGAIN with no memory for requests, EBUSY, a
     * thread other than a SINGLE_ISSUER ring's owner) consumes none, and one that stops at a request it cannot
     * allocate consumes only those before it.
     *
     * @param position an SQE's position
     * @return whether the kernel has taken it (it will not read it again)
     */
    public boolean consumed(int position) {
        return RawMemory.getIntAcquire(khead) - position > 0;
    }

    /**
     * Makes the SQEs the kernel has not consumed whose user_data matches fail when it does: their fd becomes -1
     * (a fixed file's too, which becomes a plain fd), so each completes with EBADF instead of acting on whatever file
     * has their fd number, or fills their slot, by then. Without SQPOLL the kernel reads an SQE only in the enter
     * that consumes it, so rewriting it before is safe. For a file about to close whose SQEs a refused enter left
     * queued.
     *
     * @param userDataMask  bits of the user_data compared
     * @param userDataValue what they must be
     * @return how many SQEs were changed
     */
    public int disarmUnconsumed(long userDataMask, long userDataValue) {
        int n = 0;
        for (int p = RawMemory.getIntAcquire(khead); p != tail; p++) {
            long a = sqesAddress + (long) (p & mask) * IoUringSqe.SIZE;
            if ((RawMemory.getLong(a + USER_DATA_OFFSET) & userDataMask) == userDataValue) {
                RawMemory.putInt(a + FD_OFFSET, -1);
                RawMemory.putByte(a + FLAGS_OFFSET, (byte) (RawMemory.getByte(a + FLAGS_OFFSET) & ~IOSQE_FIXED_FILE));
                n++;
            }
        }
        return n;
    }

    /** @return free slots right now (without submitting) */
    public int remaining() {
        return entries - (tail - RawMemory.getIntAcquire(khead));
    }

    /** @return the kernel's count of SQEs it dropped as invalid (sq_ring->dropped) */
    public int dropped() {
        return RawMemory.getIntOpaque(kdropped);
    }

    /** @return sq_ring->flags ({@code IORING_SQ_*}), e.g. whether the CQ overflowed or task work waits */
    public int kernelFlags() {
        // relaxed is enough: a hint the loop re-reads every iteration
        return RawMemory.getIntOpaque(kflags);
    }

    /**
     * Publishes prepared SQEs to the kernel (store-release of the tail).
     *
     * @return how many SQEs the kernel has not consumed yet, i.e. {@code to_submit} for the next enter
     */
    int publish() {
        if (tail != publishedTail) {
            RawMemory.putIntRelease(ktail, tail);
            publishedTail = tail;
        }
        // without SQPOLL only io_uring_enter moves the head, on this thread, so a relaxed read is enough
        return tail - RawMemory.getIntOpaque(khead);
    }

    /**
     * Drops the SQEs prepared since the last publish, as if never prepared: for an error path that gives up on a
     * half-built chain, and for measuring preparation alone.
     *
     * @return how many were dropped
     */
    public int discardUnpublished() {
        int n = tail - publishedTail;
        tail = publishedTail;
        return n;
    }

    /**
     * Takes the next free SQE, zeroed, submitting what is queued first when the queue is full.
     *
     * @return the SQE's byte offset into the SQE array
     * @throws IllegalStateException if the kernel will not take SQEs even after a submit (CQ overflow back-pressure)
     */
    public long nextSqe() {
        long sqe = take();
        long a = sqesAddress + sqe;
        for (int i = 0; i < IoUringSqe.SIZE; i += 8) {
            RawMemory.putLong(a + i, 0L);
        }
        return sqe;
    }

    private long take() {
        if (!tryReserve()) {
            throw new IllegalStateException("submission queue full: entries=" + entries
                + ", and io_uring_enter consumed nothing (reap completions first)");
        }
        return (long) (tail++ & mask) * IoUringSqe.SIZE;
    }

    /**
     * Makes sure the next {@link #nextSqe()} finds a free slot without submitting: when the queue is full, submits
     * what it holds now. Call it before changing any state that the SQE stands for, so that a refusal leaves nothing
     * half done.
     *
     * @return false if the queue is full and the kernel took nothing (e.g. {@code EBUSY} or {@code EAGAIN} from
     *         io_uring_enter): try again after reaping completions
     */
    public boolean tryReserve() {
        if (tail - knownHead < entries) {
            return true; // free when the head was last read, so free now: the kernel only ever moves it forward
        }
        knownHead = RawMemory.getIntAcquire(khead);
        if (tail - knownHead < entries) {
            return true;
        }
        ring.submitBecauseFull();
        knownHead = RawMemory.getIntAcquire(khead);
        return tail - knownHead < entries;
    }

    // ------------------------------------------------------------------------------------------ field access

    /**
     * The common part of every prep, mirroring liburing's {@code io_uring_prep_rw}.
     */
    private long prepRw(byte opcode, int fd, long addr, int len, long off, long userData) {
        long sqe = take();
        // the whole 64-byte SQE in eight stores, zeroing what the op does not use (nextSqe + io_uring_prep_rw)
        long a = sqesAddress + sqe;
        RawMemory.putLong(a, (opcode & 0xFFL) | ((long) fd << 32)); // opcode, flags 0, ioprio 0, fd
        RawMemory.putLong(a + OFF_OFFSET, off);
        RawMemory.putLong(a + ADDR_OFFSET, addr);
        RawMemory.putLong(a + LEN_OFFSET, len & 0xFFFFFFFFL); // len, op flags 0
        RawMemory.putLong(a + USER_DATA_OFFSET, userData);
        RawMemory.putLong(a + BUF_INDEX_OFFSET, 0L); // buf_index, personality, file_index
        RawMemory.putLong(a + ADDR3_OFFSET, 0L);
        RawMemory.putLong(a + ADDR3_OFFSET + 8, 0L);
        return sqe;
    }

    /**
     * ORs {@code IOSQE_*} flags into an SQE (e.g. {@link IoUringConstants#IOSQE_IO_LINK}).
     *
     * @param sqe   an offset from a {@code prep*} method
     * @param flags the flags to add
     */
    public void addFlags(long sqe, byte flags) {
        long a = sqesAddress + sqe + FLAGS_OFFSET;
        RawMemory.putByte(a, (byte) (RawMemory.getByte(a) | flags));
    }

    /**
     * ORs bits into the ioprio field (send/recv/accept flags).
     *
     * @param sqe  an offset from a {@code prep*} method
     * @param bits the bits to add
     */
    public void addIoprio(long sqe, short bits) {
        long a = sqesAddress + sqe + IOPRIO_OFFSET;
        RawMemory.putShort(a, (short) (RawMemory.getShort(a) | bits));
    }

    private void opFlags(long sqe, int flags) {
        RawMemory.putInt(sqesAddress + sqe + OP_FLAGS_OFFSET, flags);
    }

    /**
     * Sets the op-specific flags word (msg_flags, timeout_flags, accept_flags, ...).
     *
     * @param sqe   an offset from a {@code prep*} method
     * @param flags the value
     */
    public void setOpFlags(long sqe, int flags) {
        opFlags(sqe, flags);
    }

    /**
     * Makes an SQE name fixed-file slot {@code slot} ({@link IoUring#registerFileTable}) instead of the fd it was
     * prepared with: the fd field becomes the slot and {@code IOSQE_FIXED_FILE} is set.
     *
     * @param sqe  an offset from a {@code prep*} method
     * @param slot the slot holding the same file
     */
    public void setFixedFileSlot(long sqe, int slot) {
        RawMemory.putInt(sqesAddress + sqe + FD_OFFSET, slot);
        addFlags(sqe, IOSQE_FIXED_FILE);
    }

    /**
     * Sets buf_index / buf_group.
     *
     * @param sqe   an offset from a {@code prep*} method
     * @param index the value
     */
    public void setBufIndex(long sqe, short index) {
        RawMemory.putShort(sqesAddress + sqe + BUF_INDEX_OFFSET, index);
    }

    /**
     * An SQE with the fields every op shares ({@code io_uring_prep_rw}); for ops without a {@code prep*} method of
     * their own. Set the rest with {@link #addFlags}, {@link #addIoprio}, {@link #setOpFlags}, {@link #setBufIndex}.
     *
     * @param opcode   {@code IORING_OP_*}
     * @param fd       descriptor
     * @param addr     addr field
     * @param len      len field
     * @param off      off field
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepRaw(byte opcode, int fd, long addr, int len, long off, long userData) {
        return prepRw(opcode, fd, addr, len, off, userData);
    }

    /**
     * A read-only view of one SQE's field, for tests and tracing.
     *
     * @param sqe    offset of the SQE
     * @param offset field offset ({@link IoUringSqe})
     * @return the 64-bit word starting there
     */
    public long peekLong(long sqe, int offset) {
        return sqes.get(JAVA_LONG, sqe + offset); // checked: tests pass any offset
    }

    // ------------------------------------------------------------------------------------------ one prep per opcode

    /**
     * NOP ({@code io_uring_prep_nop}).
     *
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepNop(long userData) {
        return prepRw(IORING_OP_NOP, -1, 0, 0, 0, userData);
    }

    /**
     * Multishot ACCEPT [5.19] ({@code io_uring_prep_multishot_accept}): one SQE, a CQE per accepted connection whose
     * res is the new fd; {@code IORING_CQE_F_MORE} stays set while it is armed. No peer address is collected (every
     * CQE would overwrite the same buffer); ask {@code getpeername} when it is needed.
     *
     * @param fd       listening socket
     * @param flags    accept4 flags, e.g. {@code SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @param userData passed back in every CQE
     * @return the SQE
     */
    public long prepAcceptMultishot(int fd, int flags, long userData) {
        long sqe = prepRw(IORING_OP_ACCEPT, fd, 0, 0, 0, userData);
        opFlags(sqe, flags);
        RawMemory.putShort(sqesAddress + sqe + IOPRIO_OFFSET, IORING_ACCEPT_MULTISHOT);
        return sqe;
    }

    /**
     * Multishot ACCEPT into direct descriptors [5.19] ({@code io_uring_prep_multishot_accept_direct}): each accepted
     * socket goes into a free slot of the ring's fixed-file table, chosen by the kernel, and never gets an fd; each
     * CQE's res is the slot. A full table ends the request with {@code -ENFILE}.
     *
     * @param fd       listening socket
     * @param flags    accept4 flags without {@code SOCK_CLOEXEC} (a slot has no fd to close on exec: EINVAL),
     *                 e.g. {@code SOCK_NONBLOCK}
     * @param userData passed back in every CQE
     * @return the SQE
     */
    public long prepAcceptMultishotDirect(int fd, int flags, long userData) {
        long sqe = prepAcceptMultishot(fd, flags, userData);
        RawMemory.putInt(sqesAddress + sqe + FILE_INDEX_OFFSET, IORING_FILE_INDEX_ALLOC);
        return sqe;
    }

    /**
     * ACCEPT of one connection into a direct descriptor [5.19] ({@code io_uring_prep_accept_direct} with
     * {@link IoUringConstants#IORING_FILE_INDEX_ALLOC}): res is the slot the kernel chose.
     *
     * @param fd       listening socket
     * @param flags    accept4 flags without {@code SOCK_CLOEXEC}
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepAcceptDirect(int fd, int flags, long userData) {
        long sqe = prepAccept(fd, 0, 0, flags, userData);
        RawMemory.putInt(sqesAddress + sqe + FILE_INDEX_OFFSET, IORING_FILE_INDEX_ALLOC);
        return sqe;
    }

    /**
     * ACCEPT ({@code io_uring_prep_accept}), single shot.
     *
     * @param fd          listening socket
     * @param addr        address of a sockaddr buffer, or 0
     * @param addrLenAddr address of its socklen_t, or 0
     * @param flags       accept4 flags
     * @param userData    passed back in the CQE
     * @return the SQE
     */
    public long prepAccept(int fd, long addr, long addrLenAddr, int flags, long userData) {
        long sqe = prepRw(IORING_OP_ACCEPT, fd, addr, 0, addrLenAddr, userData);
        opFlags(sqe, flags);
        return sqe;
    }

    /**
     * Multishot RECV [6.0] from a provided buffer ring ({@code io_uring_prep_recv_multishot} with
     * {@code IOSQE_BUFFER_SELECT}): every arrival of data yields a CQE naming a buffer of group {@code bufferGroup}.
     * The request ends (no {@code F_MORE}) on EOF (res 0), an error, or {@code -ENOBUFS} when the ring is empty.
     *
     * @param fd          connected socket
     * @param bufferGroup the buffer ring's group id
     * @param msgFlags    recv flags (usually 0)
     * @param userData    passed back in every CQE
     * @return the SQE
     */
    public long prepRecvMultishot(int fd, short bufferGroup, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_RECV, fd, 0, 0, 0, userData);
        // the SQE is freshly zeroed: plain stores, no read-modify-write
        long a = sqesAddress + sqe;
        RawMemory.putInt(a + OP_FLAGS_OFFSET, msgFlags);
        RawMemory.putShort(a + IOPRIO_OFFSET, IORING_RECV_MULTISHOT);
        RawMemory.putByte(a + FLAGS_OFFSET, IOSQE_BUFFER_SELECT);
        RawMemory.putShort(a + BUF_INDEX_OFFSET, bufferGroup);
        return sqe;
    }

    /**
     * Single-shot RECV into a buffer the kernel picks from a provided buffer ring ({@code io_uring_prep_recv} with
     * {@code IOSQE_BUFFER_SELECT}): for reading on demand ({@code autoRead} off) without giving up the shared ring.
     *
     * @param fd          connected socket
     * @param bufferGroup the buffer ring's group id
     * @param msgFlags    recv flags
     * @param userData    passed back in the CQE
     * @return the SQE
     */
    public long prepRecvBufferSelect(int fd, short bufferGroup, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_RECV, fd, 0, 0, 0, userData);
        long a = sqesAddress + sqe;
        RawMemory.putInt(a + OP_FLAGS_OFFSET, msgFlags);
        RawMemory.putByte(a + FLAGS_OFFSET, IOSQE_BUFFER_SELECT);
        RawMemory.putShort(a + BUF_INDEX_OFFSET, bufferGroup);
        return sqe;
    }

    /**
     * RECV into a buffer the caller owns ({@code io_uring_prep_recv}).
     *
     * @param fd       socket
     * @param addr     destination address
     * @param len      bytes at most
     * @param msgFlags recv flags
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepRecv(int fd, long addr, int len, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_RECV, fd, addr, len, 0, userData);
        opFlags(sqe, msgFlags);
        return sqe;
    }

    /**
     * SEND ({@code io_uring_prep_send}).
     *
     * @param fd       socket
     * @param addr     source address (must stay valid until the CQE)
     * @param len      bytes
     * @param msgFlags send flags, e.g. {@code MSG_NOSIGNAL}
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepSend(int fd, long addr, int len, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_SEND, fd, addr, len, 0, userData);
        opFlags(sqe, msgFlags);
        return sqe;
    }

    /**
     * SEND_ZC [6.0] ({@code io_uring_prep_send_zc}): zero-copy send; expect two CQEs, the result (with
     * {@code F_MORE}) and later a notification ({@code F_NOTIF}) after which the buffer may be reused.
     *
     * @param fd       socket
     * @param addr     source address
     * @param len      bytes
     * @param msgFlags send flags
     * @param zcFlags  {@code IORING_RECVSEND_*} / {@code IORING_SEND_ZC_REPORT_USAGE}
     * @param userData passed back in both CQEs
     * @return the SQE
     */
    public long prepSendZc(int fd, long addr, int len, int msgFlags, short zcFlags, long userData) {
        long sqe = prepRw(IORING_OP_SEND_ZC, fd, addr, len, 0, userData);
        opFlags(sqe, msgFlags);
        addIoprio(sqe, zcFlags);
        return sqe;
    }

    /**
     * SENDMSG_ZC [6.1] ({@code io_uring_prep_sendmsg_zc}): zero-copy sendmsg, with the same two CQEs as
     * {@link #prepSendZc}.
     *
     * @param fd         socket
     * @param msghdrAddr address of a {@code struct msghdr}
     * @param msgFlags   send flags
     * @param zcFlags    {@code IORING_SEND_ZC_REPORT_USAGE}
     * @param userData   passed back in both CQEs
     * @return the SQE
     */
    public long prepSendmsgZc(int fd, long msghdrAddr, int msgFlags, short zcFlags, long userData) {
        long sqe = prepRw(IORING_OP_SENDMSG_ZC, fd, msghdrAddr, 1, 0, userData);
        opFlags(sqe, msgFlags);
        addIoprio(sqe, zcFlags);
        return sqe;
    }

    /**
     * SENDMSG ({@code io_uring_prep_sendmsg}).
     *
     * @param fd        socket
     * @param msghdrAddr address of a {@code struct msghdr} (valid until the CQE)
     * @param msgFlags  send flags
     * @param userData  passed back in the CQE
     * @return the SQE
     */
    public long prepSendmsg(int fd, long msghdrAddr, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_SENDMSG, fd, msghdrAddr, 1, 0, userData);
        opFlags(sqe, msgFlags);
        return sqe;
    }

    /**
     * RECVMSG ({@code io_uring_prep_recvmsg}).
     *
     * @param fd         socket
     * @param msghdrAddr address of a {@code struct msghdr}
     * @param msgFlags   recv flags
     * @param userData   passed back in the CQE
     * @return the SQE
     */
    public long prepRecvmsg(int fd, long msghdrAddr, int msgFlags, long userData) {
        long sqe = prepRw(IORING_OP_RECVMSG, fd, msghdrAddr, 1, 0, userData);
        opFlags(sqe, msgFlags);
        return sqe;
    }

    /**
     * Multishot RECVMSG [6.0] from a buffer ring ({@code io_uring_prep_recvmsg_multishot}); each buffer starts with an
     * {@code io_uring_recvmsg_out} header followed by name, control and payload, as the msghdr template sizes them.
     *
     * @param fd          socket
     * @param msghdrAddr  a msghdr template (namelen, controllen)
     * @param msgFlags    recv flags
     * @param bufferGroup the buffer ring's group id
     * @param userData    passed back in every CQE
     * @return the SQE
     */
    public long prepRecvmsgMultishot(int fd, long msghdrAddr, int msgFlags, short bufferGroup, long userData) {
        long sqe = prepRecvmsg(fd, msghdrAddr, msgFlags, userData);
        addIoprio(sqe, IORING_RECV_MULTISHOT);
        addFlags(sqe, IOSQE_BUFFER_SELECT);
        RawMemory.putShort(sqesAddress + sqe + BUF_INDEX_OFFSET, bufferGroup);
        return sqe;
    }

    /**
     * WRITEV ({@code io_uring_prep_writev}).
     *
     * @param fd        file or socket
     * @param iovecAddr address of a {@code struct iovec[]} (valid until the CQE)
     * @param iovecCount entries in it
     * @param offset    file offset, or -1 for the current position / sockets
     * @param userData  passed back in the CQE
     * @return the SQE
     */
    public long prepWritev(int fd, long iovecAddr, int iovecCount, long offset, long userData) {
        return prepRw(IORING_OP_WRITEV, fd, iovecAddr, iovecCount, offset, userData);
    }

    /**
     * READ ({@code io_uring_prep_read}).
     *
     * @param fd       file, pipe, eventfd or socket
     * @param addr     destination
     * @param len      bytes at most
     * @param offset   file offset, or -1 for the current position
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepRead(int fd, long addr, int len, long offset, long userData) {
        return prepRw(IORING_OP_READ, fd, addr, len, offset, userData);
    }

    /**
     * CONNECT ({@code io_uring_prep_connect}).
     *
     * @param fd       non-blocking socket
     * @param addr     address of a sockaddr (valid until the CQE)
     * @param addrLen  its length
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepConnect(int fd, long addr, int addrLen, long userData) {
        // liburing: io_uring_prep_rw(IORING_OP_CONNECT, sqe, fd, addr, 0, addrlen) - the length travels in "off"
        return prepRw(IORING_OP_CONNECT, fd, addr, 0, addrLen, userData);
    }

    /**
     * CLOSE ({@code io_uring_prep_close}).
     *
     * @param fd       descriptor to close
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepClose(int fd, long userData) {
        return prepRw(IORING_OP_CLOSE, fd, 0, 0, 0, userData);
    }

    /**
     * SHUTDOWN [5.11] ({@code io_uring_prep_shutdown}).
     *
     * @param fd       socket
     * @param how      {@code SHUT_RD}, {@code SHUT_WR}, {@code SHUT_RDWR}
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepShutdown(int fd, int how, long userData) {
        return prepRw(IORING_OP_SHUTDOWN, fd, 0, how, 0, userData);
    }

    /**
     * POLL_ADD ({@code io_uring_prep_poll_add}); with {@code multishot} ({@code io_uring_prep_poll_multishot},
     * [5.13]) it stays armed and posts a CQE per event.
     *
     * @param fd        descriptor
     * @param pollMask  {@code POLLIN}, {@code POLLOUT}, ...
     * @param multishot whether it stays armed
     * @param userData  passed back in the CQE(s)
     * @return the SQE
     */
    public long prepPollAdd(int fd, int pollMask, boolean multishot, long userData) {
        long sqe = prepRw(IORING_OP_POLL_ADD, fd, 0, multishot ? IORING_POLL_ADD_MULTI : 0, 0, userData);
        opFlags(sqe, pollMask); // poll32_events, little-endian as on x86_64
        return sqe;
    }

    /**
     * ASYNC_CANCEL by user_data ({@code io_uring_prep_cancel64}); its own CQE has res 0, {@code -ENOENT} (nothing
     * found) or {@code -EALREADY} (already running), and the cancelled request completes with {@code -ECANCELED}.
     *
     * @param targetUserData the user_data of the request to cancel
     * @param cancelFlags    {@code IORING_ASYNC_CANCEL_*}
     * @param userData       passed back in the cancel's own CQE
     * @return the SQE
     */
    public long prepCancel(long targetUserData, int cancelFlags, long userData) {
        long sqe = prepRw(IORING_OP_ASYNC_CANCEL, -1, targetUserData, 0, 0, userData);
        opFlags(sqe, cancelFlags);
        return sqe;
    }

    /**
     * ASYNC_CANCEL of every request on a descriptor [5.19] ({@code io_uring_prep_cancel_fd} with
     * {@code IORING_ASYNC_CANCEL_ALL}).
     *
     * @param fd       descriptor whose requests are cancelled
     * @param userData passed back in the cancel's own CQE (res = how many were cancelled)
     * @return the SQE
     */
    public long prepCancelFd(int fd, long userData) {
        long sqe = prepRw(IORING_OP_ASYNC_CANCEL, fd, 0, 0, 0, userData);
        opFlags(sqe, IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL);
        return sqe;
    }

    /**
     * TIMEOUT ({@code io_uring_prep_timeout}): completes with {@code -ETIME} when the time passes, or with 0 once
     * {@code count} other CQEs have been posted (0 = time only).
     *
     * @param timespecAddr address of a {@link KernelTimespec} (valid until the CQE)
     * @param count        completions that end it early, or 0
     * @param timeoutFlags {@code IORING_TIMEOUT_*}
     * @param userData     passed back in the CQE
     * @return the SQE
     */
    public long prepTimeout(long timespecAddr, int count, int timeoutFlags, long userData) {
        long sqe = prepRw(IORING_OP_TIMEOUT, -1, timespecAddr, 1, count, userData);
        opFlags(sqe, timeoutFlags);
        return sqe;
    }

    /**
     * SOCKET into a direct descriptor [5.19] ({@code io_uring_prep_socket_direct}): the new socket goes into a slot
     * of the ring's fixed-file table and never gets an fd.
     *
     * @param domain   {@code AF_*}
     * @param type     {@code SOCK_*}, optionally with {@code SOCK_NONBLOCK} (not {@code SOCK_CLOEXEC}: EINVAL)
     * @param protocol usually 0
     * @param slot     the slot to fill (it must be empty or it is replaced), or -1 for one the kernel picks
     * @param userData passed back in the CQE: res is the slot the kernel picked, or 0 for {@code slot}
     * @return the SQE
     */
    public long prepSocketDirect(int domain, int type, int protocol, int slot, long userData) {
        // liburing: io_uring_prep_rw(IORING_OP_SOCKET, sqe, domain, NULL, protocol, type)
        long sqe = prepRw(IORING_OP_SOCKET, domain, 0, protocol, type, userData);
        RawMemory.putInt(sqesAddress + sqe + FILE_INDEX_OFFSET, slot < 0 ? IORING_FILE_INDEX_ALLOC : slot + 1);
        return sqe;
    }

    /**
     * BIND [6.11] ({@code io_uring_prep_bind}).
     *
     * @param fd       socket (or a slot, with {@link #setFixedFileSlot})
     * @param addr     address of a sockaddr (the kernel copies it at submission)
     * @param addrLen  its length
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepBind(int fd, long addr, int addrLen, long userData) {
        // liburing: io_uring_prep_rw(IORING_OP_BIND, sqe, fd, addr, 0, addrlen): the length travels in "off"
        return prepRw(IORING_OP_BIND, fd, addr, 0, addrLen, userData);
    }

    /**
     * CLOSE of a direct descriptor [5.15] ({@code io_uring_prep_close_direct}): empties the ring's fixed-file slot;
     * requests already issued on it keep the file they took, and the socket closes when the last of them ends. A free
     * slot may be handed out again by the next allocation.
     *
     * @param slot     the slot
     * @param userData passed back in the CQE (res 0, or {@code -EBADF} for an empty slot)
     * @return the SQE
     */
    public long prepCloseDirect(int slot, long userData) {
        long sqe = prepRw(IORING_OP_CLOSE, 0, 0, 0, 0, userData);
        RawMemory.putInt(sqesAddress + sqe + FILE_INDEX_OFFSET, slot + 1);
        return sqe;
    }

    /**
     * FILES_UPDATE [5.6] ({@code io_uring_prep_files_update}): puts fds in the ring's fixed-file table; with
     * {@code offset} -1 in slots the kernel picks [5.19], which it writes back over the fds in the array. The table
     * holds its own reference: the fds may be closed after.
     *
     * @param fdsAddress address of an int array of fds
     * @param count      how many
     * @param offset     the first slot, or -1 for slots the kernel picks
     * @param userData   passed back in the CQE: res is how many went in, or {@code -errno}
     * @return the SQE
     */
    public long prepFilesUpdate(long fdsAddress, int count, int offset, long userData) {
        return prepRw(IORING_OP_FILES_UPDATE, -1, fdsAddress, count, offset < 0 ? IORING_FILE_INDEX_ALLOC & 0xFFFFFFFFL
            : offset, userData);
    }

    /**
     * FIXED_FD_INSTALL [6.8] ({@code io_uring_prep_fixed_fd_install}): a regular fd for the file in a fixed-file
     * slot, for a call that needs one; the slot keeps the file too.
     *
     * @param slot     the slot
     * @param flags    0 (close-on-exec) or {@link IoUringConstants#IORING_FIXED_FD_NO_CLOEXEC}
     * @param userData passed back in the CQE: res is the new fd
     * @return the SQE
     */
    public long prepFixedFdInstall(int slot, int flags, long userData) {
        long sqe = prepRw(IORING_OP_FIXED_FD_INSTALL, slot, 0, 0, 0, userData);
        RawMemory.putByte(sqesAddress + sqe + FLAGS_OFFSET, IOSQE_FIXED_FILE);
        opFlags(sqe, flags);
        return sqe;
    }

    /**
     * URING_CMD on a socket [6.7] ({@code io_uring_prep_cmd_sock}): getsockopt or setsockopt without an fd when
     * the SQE names a fixed-file slot ({@link #setFixedFileSlot}). {@code SOCKET_URING_OP_GETSOCKOPT} takes only
     * {@code SOL_SOCKET} (others: EOPNOTSUPP) and completes with the option's length; SETSOCKOPT takes any level.
     *
     * @param cmdOp    {@code SOCKET_URING_OP_*}
     * @param fd       socket
     * @param level    {@code SOL_SOCKET}, {@code IPPROTO_TCP}, ...
     * @param optname  the option
     * @param optval   address of its value (read or written while the SQE is issued)
     * @param optlen   its length
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepCmdSock(int cmdOp, int fd, int level, int optname, long optval, int optlen, long userData) {
        long sqe = prepRw(IORING_OP_URING_CMD, fd, 0, 0, 0, userData);
        long a = sqesAddress + sqe;
        RawMemory.putInt(a + CMD_OP_OFFSET, cmdOp);
        RawMemory.putInt(a + LEVEL_OFFSET, level);
        RawMemory.putInt(a + OPTNAME_OFFSET, optname);
        RawMemory.putInt(a + OPTLEN_OFFSET, optlen);
        RawMemory.putLong(a + OPTVAL_OFFSET, optval);
        return sqe;
    }

    /**
     * URING_CMD getsockname or getpeername on a socket [6.19] ({@code SOCKET_URING_OP_GETSOCKNAME}).
     *
     * @param fd       socket
     * @param addr     address of a sockaddr buffer
     * @param lenAddr  address of its int length, in and out
     * @param peer     the peer's address (getpeername), or the socket's own
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepGetsockname(int fd, long addr, long lenAddr, boolean peer, long userData) {
        long sqe = prepRw(IORING_OP_URING_CMD, fd, addr, 0, 0, userData);
        long a = sqesAddress + sqe;
        RawMemory.putInt(a + CMD_OP_OFFSET, SOCKET_URING_OP_GETSOCKNAME);
        RawMemory.putInt(a + OPTLEN_OFFSET, peer ? 1 : 0);
        RawMemory.putLong(a + ADDR3_OFFSET, lenAddr);
        return sqe;
    }

    /**
     * MSG_RING with {@code IORING_MSG_SEND_FD} [6.0] ({@code io_uring_prep_msg_ring_fd_alloc}): the file in this
     * ring's slot {@code sourceSlot} is put in another ring's table as well, in a slot that ring allocates; this ring
     * keeps its slot (empty it once the CQE says the file has moved). The target ring gets a CQE with
     * {@code targetUserData} whose res is its new slot; this ring's CQE has the same res, or {@code -errno}
     * ({@code -ENFILE}: the target's table is full).
     *
     * @param targetRingFd   the other ring's fd
     * @param sourceSlot     this ring's slot
     * @param targetUserData the target CQE's user_data
     * @param userData       passed back in this ring's CQE
     * @return the SQE
     */
    public long prepMsgRingFd(int targetRingFd, int sourceSlot, long targetUserData, long userData) {
        long sqe = prepRw(IORING_OP_MSG_RING, targetRingFd, IORING_MSG_SEND_FD, 0, targetUserData, userData);
        long a = sqesAddress + sqe;
        RawMemory.putLong(a + ADDR3_OFFSET, sourceSlot & 0xFFFFFFFFL);
        RawMemory.putInt(a + FILE_INDEX_OFFSET, IORING_FILE_INDEX_ALLOC);
        return sqe;
    }
}
