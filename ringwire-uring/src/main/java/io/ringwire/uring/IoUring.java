package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.uring.IoUringConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One io_uring instance: the ring fd, the mmap-ed SQ/CQ rings and SQE array, and the calls that drive them.
 *
 * <p>Set-up asks for the best the kernel offers and falls back step by step ({@link Builder}): SINGLE_ISSUER +
 * DEFER_TASKRUN (completions run only when the owner enters, no inter-processor interrupts), else COOP_TASKRUN +
 * TASKRUN_FLAG; CQSIZE, CLAMP, SUBMIT_ALL and NO_SQARRAY where supported. {@link #setupFlags()} and
 * {@link #missingSetupFlags()} say what was granted and what was not.
 *
 * <p>Threading: one owning thread submits and reaps. A ring built {@linkplain Builder#startDisabled(boolean)
 * disabled} can be created on one thread and {@linkplain #enable() enabled} by its owner, which SINGLE_ISSUER then
 * binds to. Closing is idempotent; it releases every mapping and every byte the ring allocated.
 */
public final class IoUring implements AutoCloseable {
    /** struct io_uring_files_update (16 bytes) and the one fd it points at. */
    private static final int FILES_UPDATE_SIZE = 16 + 8;
    /** The general timeout passed with a minimum wait when the caller has none. */
    private static final long MIN_WAIT_IDLE_TIMEOUT_NANOS = 1_000_000_000L;

    private final int ringFd;
    private final int setupFlags;
    private final int features;
    private final List<String> missingSetupFlags;
    private final Arena arena;
    private final long ringsAddress;
    private final long ringsSize;
    private final long sqesAddress;
    private final long sqesSize;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final MemorySegment errnoCapture;
    private final MemorySegment eventsArg;
    private final MemorySegment waitTimespec;
    /** struct io_uring_files_update (16 bytes) and the one fd it points at, for {@link #updateFile}. */
    private final MemorySegment filesUpdate;
    private final long arenaBytes;

    private int enterFd;
    private int enterFlags;
    private Thread ringFdOwner;
    private boolean disabled;
    private boolean closed;

    // counters: written by the owning thread only, read by anyone (a stale read is fine for statistics)
    private long enters;
    private long sqesSubmitted;
    private long fullSubmits;

    private IoUring(Builder b) throws NativeIoException {
        Arena arena = Arena.ofShared();
        long arenaBytes = 0;
        int fd = -1;
        long ringsAddr = 0;
        long ringsLen = 0;
        long sqesAddr = 0;
        long sqesLen = 0;
        try {
            MemorySegment params = arena.allocate(IoUringParams.LAYOUT);
            arenaBytes += IoUringParams.SIZE;
            List<String> missing = new ArrayList<>();
            int flags = b.wantedFlags();
            for (;;) {
                params.fill((byte) 0);
                params.set(JAVA_INT, IoUringParams.FLAGS_OFFSET, flags);
                params.set(JAVA_INT, IoUringParams.CQ_ENTRIES_OFFSET, b.cqEntries);
                fd = Libc.ioUringSetup(b.entries, params);
                if (fd != -Errno.EINVAL) {
                    break;
                }
                int next = fallback(flags, missing);
                if (next == flags) {
                    break;
                }
                flags = next;
            }
            NativeIoException.check(fd, "io_uring_setup(entries=" + b.entries + ", flags=0x"
                + Integer.toHexString(flags) + ")");
            this.setupFlags = flags;
            this.features = params.get(JAVA_INT, IoUringParams.FEATURES_OFFSET);
            if ((features & IORING_FEAT_SINGLE_MMAP) == 0) {
                throw new NativeIoException("io_uring_setup: kernel lacks IORING_FEAT_SINGLE_MMAP (5.4)",
                    Errno.ENOSYS);
            }
            this.missingSetupFlags = List.copyOf(missing);
            int sqEntries = params.get(JAVA_INT, IoUringParams.SQ_ENTRIES_OFFSET);
            int cqEntries = params.get(JAVA_INT, IoUringParams.CQ_ENTRIES_OFFSET);
            long sqRingSize = params.get(JAVA_INT, IoUringParams.SQ_OFF + IoUringParams.SQ_OFF_ARRAY)
                + 4L * sqEntries;
            long cqRingSize = params.get(JAVA_INT, IoUringParams.CQ_OFF + IoUringParams.CQ_OFF_CQES)
                + (long) IoUringCqe.SIZE * cqEntries;
            ringsLen = Math.max(sqRingSize, cqRingSize); // one mapping serves both rings (FEAT_SINGLE_MMAP)
            ringsAddr = Libc.mmap(ringsLen, Libc.PROT_READ_WRITE, Libc.MAP_SHARED_POPULATE, fd, IORING_OFF_SQ_RING);
            if (ringsAddr < 0) {
                long err = ringsAddr;
                ringsAddr = 0;
                NativeIoException.check((int) err, "mmap io_uring rings");
            }
            sqesLen = (long) IoUringSqe.SIZE * sqEntries;
            sqesAddr = Libc.mmap(sqesLen, Libc.PROT_READ_WRITE, Libc.MAP_SHARED_POPULATE, fd, IORING_OFF_SQES);
            if (sqesAddr < 0) {
                long err = sqesAddr;
                sqesAddr = 0;
                NativeIoException.check((int) err, "mmap io_uring SQEs");
            }
            MemorySegment rings = MemorySegment.ofAddress(ringsAddr).reinterpret(ringsLen);
            MemorySegment sqes = MemorySegment.ofAddress(sqesAddr).reinterpret(sqesLen);
            this.sq = new SubmissionQueue(this, rings, params, sqes, (flags & IORING_SETUP_NO_SQARRAY) != 0);
            this.cq = new CompletionQueue(rings, params);
            this.errnoCapture = Libc.newErrnoCapture();
            this.eventsArg = arena.allocate(IoUringGeteventsArg.LAYOUT);
            this.waitTimespec = arena.allocate(KernelTimespec.LAYOUT);
            this.filesUpdate = arena.allocate(FILES_UPDATE_SIZE, 8);
            arenaBytes += IoUringGeteventsArg.SIZE + KernelTimespec.SIZE + FILES_UPDATE_SIZE;
            eventsArg.set(JAVA_LONG, IoUringGeteventsArg.TS_OFFSET, waitTimespec.address());
        } catch (NativeIoException | RuntimeException e) {
            // free what was built before throwing, so a failed set-up leaks nothing
            if (sqesAddr > 0) {
                Libc.munmap(sqesAddr, sqesLen);
            }
            if (ringsAddr > 0) {
                Libc.munmap(ringsAddr, ringsLen);
            }
            if (fd >= 0) {
                Libc.close(fd);
            }
            arena.close();
            throw e;
        }
        this.arena = arena;
        this.arenaBytes = arenaBytes;
        this.ringFd = fd;
        this.enterFd = fd;
        this.ringsAddress = ringsAddr;
        this.ringsSize = ringsLen;
        this.sqesAddress = sqesAddr;
        this.sqesSize = sqesLen;
        this.disabled = (setupFlags & IORING_SETUP_R_DISABLED) != 0;
        NativeMemory.reserve(ringsLen + sqesLen + arenaBytes);
    }

    /**
     * The next, more modest set of flags after the kernel said EINVAL, recording what was given up.
     * Order: the newest extras first, then the task-running model, then SINGLE_ISSUER.
     */
    private static int fallback(int flags, List<String> missing) {
        if ((flags & IORING_SETUP_NO_SQARRAY) != 0) {
            missing.add("NO_SQARRAY (6.6)");
            return flags & ~IORING_SETUP_NO_SQARRAY;
        }
        if ((flags & IORING_SETUP_DEFER_TASKRUN) != 0) {
            missing.add("DEFER_TASKRUN (6.1): using COOP_TASKRUN + TASKRUN_FLAG");
            return (flags & ~IORING_SETUP_DEFER_TASKRUN) | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
        }
        if ((flags & IORING_SETUP_SINGLE_ISSUER) != 0) {
            missing.add("SINGLE_ISSUER (6.0)");
            return flags & ~IORING_SETUP_SINGLE_ISSUER;
        }
        if ((flags & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG)) != 0) {
            missing.add("COOP_TASKRUN + TASKRUN_FLAG (5.19)");
            return flags & ~(IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
        }
        if ((flags & IORING_SETUP_SUBMIT_ALL) != 0) {
            missing.add("SUBMIT_ALL (5.18)");
            return flags & ~IORING_SETUP_SUBMIT_ALL;
        }
        return flags;
    }

    /** @return a builder with Ringwire's defaults */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** @return the ring's file descriptor */
    public int fd() {
        return ringFd;
    }

    /** @return the {@code IORING_SETUP_*} flags the kernel accepted */
    public int setupFlags() {
        return setupFlags;
    }

    /** @return {@code IORING_FEAT_*} bits the kernel reported */
    public int features() {
        return features;
    }

    /** @return the set-up flags asked for but not granted, each with the version that brings it */
    public List<String> missingSetupFlags() {
        return missingSetupFlags;
    }

    /** @return the submission side */
    public SubmissionQueue sq() {
        return sq;
    }

    /** @return the completion side */
    public CompletionQueue cq() {
        return cq;
    }

    /**
     * @return {@code io_uring_enter} calls made so far, failed ones too: that it moved does not say the SQEs queued
     *         were consumed ({@link SubmissionQueue#consumed(int)} does)
     */
    public long enterCount() {
        return enters;
    }

    /** @return SQEs the kernel has consumed so far */
    public long sqesSubmitted() {
        return sqesSubmitted;
    }

    /** @return enters forced because the SQ filled up before the loop's own enter */
    public long fullSubmitCount() {
        return fullSubmits;
    }

    /** @return whether the ring fd is registered, so enters skip the fd table look-up */
    public boolean isRingFdRegistered() {
        return enterFd != ringFd || (enterFlags & IORING_ENTER_REGISTERED_RING) != 0;
    }

    // ------------------------------------------------------------------------------------------ enter

    /**
     * Submits every prepared SQE without waiting.
     *
     * @return SQEs consumed, or {@code -errno}
     */
    public int submit() {
        return enter(0, 0, -1, 0);
    }

    /**
     * Submits every prepared SQE and waits for at least {@code minComplete} CQEs, or until the timeout.
     *
     * <p>This is the event loop's one system call per iteration. With DEFER_TASKRUN, completions are only produced
     * while the owner is in here with GETEVENTS, so a loop that has nothing to wait for still calls this with
     * {@code minComplete = 0}.
     *
     * @param minComplete  CQEs to wait for (0 = just submit and reap what is done)
     * @param timeoutNanos the longest wait, or a negative number for no limit
     * @return SQEs consumed (0 or more), or {@code -errno}: {@code -ETIME} when the timeout passed with nothing
     *         submitted, {@code -EINTR} on a signal, {@code -EBUSY} when the CQ must be drained first
     */
    public int submitAndWait(int minComplete, long timeoutNanos) {
        return enter(minComplete, IORING_ENTER_GETEVENTS, timeoutNanos, 0);
    }

    /**
     * Like {@link #submitAndWait(int, long)}, batching wake-ups with a minimum wait ({@code min_wait_usec} of
     * {@code io_uring_getevents_arg}, {@link IoUringConstants#IORING_FEAT_MIN_TIMEOUT} [6.12]): until
     * {@code minWaitMicros} have passed, completions do not end the wait unless {@code minComplete} of them are in;
     * after that, the first one does. Without the feature the kernel ignores the field (check {@link #features()}).
     *
     * <p>A general timeout is always passed with it, {@code timeoutNanos} or a second when that is negative: the
     * kernel's min-wait timer ends a wait that has none at the minimum, with or without completions
     * ({@code io_cqring_min_timer_wakeup}; an idle 6.18 loop was not seen to wake early without one, but the second
     * costs nothing).
     *
     * @param minComplete   completions that end the wait before the minimum has passed
     * @param timeoutNanos  the longest wait, or a negative number for a second (the caller waits again)
     * @param minWaitMicros the minimum wait, 0 for none
     * @return as {@link #submitAndWait(int, long)}
     */
    public int submitAndWait(int minComplete, long timeoutNanos, int minWaitMicros) {
        return enter(minComplete, IORING_ENTER_GETEVENTS, timeoutNanos, minWaitMicros);
    }

    private int enter(int minComplete, int flags, long timeoutNanos, int minWaitMicros) {
        int toSubmit = sq.publish();
        long arg = 0;
        long argSize = 0;
        if ((flags & IORING_ENTER_GETEVENTS) != 0 && minComplete > 0 && (timeoutNanos >= 0 || minWaitMicros > 0)) {
            KernelTimespec.set(waitTimespec, timeoutNanos >= 0 ? timeoutNanos : MIN_WAIT_IDLE_TIMEOUT_NANOS);
            eventsArg.set(JAVA_INT, IoUringGeteventsArg.MIN_WAIT_USEC_OFFSET, minWaitMicros); // 0: none
            arg = eventsArg.address();
            argSize = IoUringGeteventsArg.SIZE;
            flags |= IORING_ENTER_EXT_ARG;
        }
        if (toSubmit == 0 && (flags & IORING_ENTER_GETEVENTS) == 0) {
            return 0; // nothing to do: no syscall
        }
        int ret = Libc.ioUringEnter(errnoCapture, enterFd, toSubmit, minComplete, flags | enterFlags, arg, argSize);
        enters++;
        if (ret > 0) {
            sqesSubmitted += ret;
        }
        return ret;
    }

    void submitBecauseFull() {
        fullSubmits++;
        // GETEVENTS with min 0 also runs deferred task work, so completions that free CQ space get posted
        enter(0, IORING_ENTER_GETEVENTS, -1, 0);
    }

    // ------------------------------------------------------------------------------------------ register

    /**
     * Enables a ring set up with {@code R_DISABLED}; under SINGLE_ISSUER the calling thread becomes its owner.
     *
     * @throws NativeIoException if the kernel refuses
     */
    public void enable() throws NativeIoException {
        if (!disabled) {
            return;
        }
        NativeIoException.check(Libc.ioUringRegister(ringFd, IORING_REGISTER_ENABLE_RINGS, MemorySegment.NULL, 0),
            "io_uring_register(ENABLE_RINGS)");
        disabled = false;
    }

    /**
     * Registers the ring fd with the calling thread [5.18], so each enter skips the fd look-up and reference count.
     * The registration belongs to the calling thread: enter from, and close on, that thread. Called by a thread that
     * takes the ring over from another, it registers the fd for the new one.
     *
     * @return whether it is now registered (false when the kernel does not support it)
     */
    public boolean registerRingFd() {
        if (isRingFdRegistered()) {
            if (ringFdOwner == Thread.currentThread()) {
                return true;
            }
            // registered by a thread that has since handed the ring over (an event loop suspended, then resumed on
            // another thread): the index is that thread's, and the kernel dropped it when the thread exited
            enterFd = ringFd;
            enterFlags &= ~IORING_ENTER_REGISTERED_RING;
            ringFdOwner = null;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment update = a.allocate(16, 8); // struct io_uring_rsrc_update {u32 offset; u32 resv; u64 data}
            update.set(JAVA_INT, 0, -1);              // any free slot
            update.set(JAVA_LONG, 8, ringFd);
            int ret = Libc.ioUringRegister(ringFd, IORING_REGISTER_RING_FDS, update, 1);
            if (ret != 1) {
                return false;
            }
            enterFd = update.get(JAVA_INT, 0);
            enterFlags |= IORING_ENTER_REGISTERED_RING;
            ringFdOwner = Thread.currentThread();
            return true;
        }
    }

    /**
     * Registers an empty table of {@code slots} fixed files ({@code IORING_REGISTER_FILES2} with
     * {@code IORING_RSRC_REGISTER_SPARSE} [5.19]). An SQE that names a slot ({@link SubmissionQueue#setFixedFileSlot})
     * instead of an fd skips the fd table look-up and the file's reference count on every issue ({@code fget} and
     * {@code fput}). With a single issuer, call it from that thread.
     *
     * @param slots how many
     * @return 0, or {@code -errno} ({@code -EINVAL} on kernels without sparse tables, {@code -EBUSY} if one is
     *         registered already, {@code -ENOMEM}, {@code -EMFILE} over RLIMIT_NOFILE)
     */
    public int registerFileTable(int slots) {
        if (slots <= 0) {
            throw new IllegalArgumentException("fixed file slots must be positive: slots=" + slots);
        }
        try (Arena a = Arena.ofConfined()) {
            // struct io_uring_rsrc_register { u32 nr; u32 flags; u64 resv2; u64 data; u64 tags; }
            MemorySegment reg = a.allocate(32, 8);
            reg.set(JAVA_INT, 0, slots);
            reg.set(JAVA_INT, 4, IORING_RSRC_REGISTER_SPARSE);
            return Libc.ioUringRegister(ringFd, IORING_REGISTER_FILES2, reg, 32);
        }
    }

    /**
     * Puts {@code fd} in fixed-file slot {@code slot}, or empties the slot with {@code fd} -1
     * ({@code IORING_REGISTER_FILES_UPDATE} [5.5]). The table holds its own reference to the file: close(2) on the fd
     * does not close the socket while a slot still holds it. Requests already issued on the slot keep the file they
     * took. With a single issuer, call it from that thread. Allocates nothing.
     *
     * @param slot the slot, below the table's size
     * @param fd   the descriptor, or -1
     * @return 1, or {@code -errno} ({@code -EBADF} for a closed fd, {@code -EINVAL} for a slot out of range,
     *         {@code -ENXIO} without a table)
     */
    public int updateFile(int slot, int fd) {
        MemorySegment u = filesUpdate; // struct io_uring_files_update { u32 offset; u32 resv; u64 fds; } + int fd
        u.set(JAVA_INT, 0, slot);
        u.set(JAVA_INT, 4, 0);
        u.set(JAVA_LONG, 8, u.address() + 16);
        u.set(JAVA_INT, 16, fd);
        return Libc.ioUringRegister(ringFd, IORING_REGISTER_FILES_UPDATE, u, 1);
    }

    /**
     * Registers an eventfd the kernel signals when this ring has completions for its owner [5.2]; with DEFER_TASKRUN
     * also when work for it arrives while the list of it was empty (6.1): how one thread that waits in another ring's
     * enter learns that this one has something (a READ of the eventfd in that ring ends the wait).
     *
     * @param eventFd the eventfd's descriptor
     * @return 0, or {@code -errno} ({@code -EBUSY} if one is registered already)
     */
    public int registerEventFd(int eventFd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fd = a.allocate(JAVA_INT);
            fd.set(JAVA_INT, 0, eventFd);
            return Libc.ioUringRegister(ringFd, IORING_REGISTER_EVENTFD, fd, 1);
        }
    }

    /**
     * {@code io_uring_register} on this ring, for callers that build their own argument.
     *
     * @param opcode {@code IORING_REGISTER_*}
     * @param arg    the argument
     * @param nrArgs its count
     * @return the result, or {@code -errno}
     */
    public int register(int opcode, MemorySegment arg, int nrArgs) {
        return Libc.ioUringRegister(ringFd, opcode, arg, nrArgs);
    }

    // ------------------------------------------------------------------------------------------ close

    /** @return whether {@link #close()} has run */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Unmaps the rings and closes the fd; the kernel cancels whatever is still in flight. Buffers the caller handed to
     * in-flight SQEs must outlive this call only until it returns. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if ((enterFlags & IORING_ENTER_REGISTERED_RING) != 0 && ringFdOwner == Thread.currentThread()) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment update = a.allocate(16, 8);
                update.set(JAVA_INT, 0, enterFd);
                Libc.ioUringRegister(ringFd, IORING_UNREGISTER_RING_FDS, update, 1);
            }
        }
        Libc.munmap(sqesAddress, sqesSize);
        Libc.munmap(ringsAddress, ringsSize);
        Libc.close(ringFd);
        arena.close();
        NativeMemory.release(ringsSize + sqesSize + arenaBytes);
    }

    @Override
    public String toString() {
        return "IoUring[fd=" + ringFd + ", sq=" + sq.entries() + ", cq=" + cq.entries() + ", flags="
            + IoUringProbe.setupFlagNames(setupFlags) + "]";
    }

    /**
     * Settings for {@link IoUring}; every flag that the kernel rejects is dropped in a fixed order and reported.
     */
    public static final class Builder {
        private int entries = 256;
        private int cqEntries = 0;
        private boolean singleIssuer = true;
        private boolean deferTaskrun = true;
        private boolean startDisabled = false;
        private boolean noSqArray = true;

        private Builder() { }

        /**
         * @param entries SQ size (rounded up to a power of two by the kernel; clamped to its maximum)
         * @return this
         */
        public Builder entries(int entries) {
            if (entries < 1) {
                throw new IllegalArgumentException("entries must be at least 1: entries=" + entries);
            }
            this.entries = entries;
            return this;
        }

        /**
         * @param cqEntries CQ size (0 = kernel default of twice the SQ); multishot requests want a large one
         * @return this
         */
        public Builder cqEntries(int cqEntries) {
            if (cqEntries < 0) {
                throw new IllegalArgumentException("cqEntries must not be negative: cqEntries=" + cqEntries);
            }
            this.cqEntries = cqEntries;
            return this;
        }

        /**
         * @param singleIssuer ask for SINGLE_ISSUER [6.0] (only the owning thread submits)
         * @return this
         */
        public Builder singleIssuer(boolean singleIssuer) {
            this.singleIssuer = singleIssuer;
            return this;
        }

        /**
         * @param deferTaskrun ask for DEFER_TASKRUN [6.1] (needs SINGLE_ISSUER; falls back to COOP_TASKRUN)
         * @return this
         */
        public Builder deferTaskrun(boolean deferTaskrun) {
            this.deferTaskrun = deferTaskrun;
            return this;
        }

        /**
         * @param startDisabled create with R_DISABLED; the owner thread calls {@link IoUring#enable()}
         * @return this
         */
        public Builder startDisabled(boolean startDisabled) {
            this.startDisabled = startDisabled;
            return this;
        }

        /**
         * @param noSqArray ask for NO_SQARRAY [6.6] (SQEs consumed in ring order, no indirection array)
         * @return this
         */
        public Builder noSqArray(boolean noSqArray) {
            this.noSqArray = noSqArray;
            return this;
        }

        int wantedFlags() {
            int f = IORING_SETUP_CLAMP | IORING_SETUP_SUBMIT_ALL;
            if (cqEntries > 0) {
                f |= IORING_SETUP_CQSIZE;
            }
            if (singleIssuer) {
                f |= IORING_SETUP_SINGLE_ISSUER;
                f |= deferTaskrun ? IORING_SETUP_DEFER_TASKRUN
                                  : IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
            } else {
                f |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
            }
            if (startDisabled) {
                f |= IORING_SETUP_R_DISABLED;
            }
            if (noSqArray) {
                f |= IORING_SETUP_NO_SQARRAY;
            }
            return f;
        }

        /**
         * Creates the ring.
         *
         * @return the ring
         * @throws NativeIoException if io_uring is unavailable ({@code ENOSYS}, {@code EPERM} under a seccomp
         *                           policy) or out of resources ({@code ENOMEM}, {@code EMFILE})
         */
        public IoUring build() throws NativeIoException {
            return new IoUring(this);
        }
    }
}
