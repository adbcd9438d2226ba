package io.ringwire.transport;

import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

import static io.ringwire.transport.AbstractRingwireChannel.DIRECT_DESCRIPTOR_FD;
import static io.ringwire.transport.AbstractRingwireChannel.logger;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;

/**
 * Where a stream channel's socket lives, and every call whose form depends on it, as Netty's io_uring transport keeps
 * its socket calls in {@code LinuxSocket}. Three places:
 * <ul>
 *   <li>a plain fd ({@link AbstractRingwireChannel#fd}), named by its number in each SQE;</li>
 *   <li>an fd that also holds a slot of its loop's fixed-file table, taken at its {@link #SQES_BEFORE_FIXED_FILE}th
 *       SQE, whose SQEs then name the slot;</li>
 *   <li>a direct descriptor ({@link AbstractRingwireChannel#DIRECT_DESCRIPTOR_FD}): the socket is only in a slot of
 *       a loop's fixed-file table and has no fd; calls outside SQEs go to that loop ({@link #onSlot}), and the socket
 *       moves between tables when the channel moves between loops. A client on direct descriptors has no socket at
 *       all until it joins a loop ({@link PendingSocket}).</li>
 * </ul>
 * Owned by one channel; its hot-path methods ({@link #nameSlotOrFd}, {@link #nameSlot}, {@link #sendNow}) are small
 * so that they inline.
 */
final class StreamSocket {
    /**
     * SQEs a connection names its fd in before it takes a slot of the loop's fixed-file table: a slot costs two
     * io_uring_register calls (at the take and at close) and saves the kernel an fd look-up and a reference count per
     * SQE, so a short-lived connection (a request and a close) is better off without one.
     */
    static final int SQES_BEFORE_FIXED_FILE = 16;

    /** {@link #slot}: no slot (not registered, the table refused, or a direct descriptor moving or closed). */
    private static final int NO_SLOT = -1;

    private final AbstractRingwireStreamChannel channel;
    /**
     * One int for three states: a slot of the fixed-file table ({@code >= 0}, {@link #hasSlot}); {@link #NO_SLOT};
     * or, below it, a socket with an fd counting the SQEs that name its fd before it takes a slot
     * ({@link #countdown}): {@code NO_SLOT - n} with {@code n} such SQEs to go.
     */
    private int slot = NO_SLOT;
    /**
     * A direct descriptor: the loop whose fixed-file table holds its socket in {@link #slot}. Null while it moves
     * between loops, before a client's socket is made, and for a socket with an fd.
     */
    private volatile RingwireIoHandler home;
    /** A direct descriptor counted in its loop's {@link RingwireCounters#directDescriptors()}. */
    private boolean joined;
    /** A client on direct descriptors whose socket is made when it joins its loop: what it needs until then. */
    private volatile PendingSocket pending;

    /** A socket with an fd; or, {@code pending} not null, a client's socket made when the channel joins its loop. */
    StreamSocket(AbstractRingwireStreamChannel channel, PendingSocket pending) {
        this.channel = channel;
        this.pending = pending;
    }

    /** A direct descriptor accepted into {@code slot} of {@code home}'s fixed-file table. */
    StreamSocket(AbstractRingwireStreamChannel channel, int slot, RingwireIoHandler home) {
        this.channel = channel;
        this.slot = slot;
        this.home = home;
    }

    /** @return {@link #slot} for a socket with an fd that names it in {@code sqes} more SQEs before taking a slot */
    private static int countdown(int sqes) {
        return NO_SLOT - sqes;
    }

    /** @return whether the socket has a slot in a fixed-file table */
    private boolean hasSlot() {
        return slot >= 0;
    }

    /** @return the socket's fixed-file slot, or a negative number without one; on the loop only */
    int slot() {
        return slot;
    }

    /** @return whether the socket is a direct descriptor: a slot of a loop's fixed-file table, no fd */
    boolean isDirectDescriptor() {
        return channel.fd == DIRECT_DESCRIPTOR_FD;
    }

    // ---------------------------------------------------------------- in SQEs

    /**
     * Names the socket's fixed-file slot instead of its fd in {@code sqe}, taking one at its
     * {@link #SQES_BEFORE_FIXED_FILE}th SQE.
     */
    void nameSlotOrFd(RingwireIoRegistration r, long sqe) {
        int s = slot;
        if (s < NO_SLOT && ++s == NO_SLOT) {
            s = r.handler().fileTable().takeFileSlot(channel.fd); // NO_SLOT when refused: given up
        }
        slot = s;
        if (s >= 0) {
            r.sq().setFixedFileSlot(sqe, s);
        }
    }

    /**
     * Names a direct descriptor's slot in {@code sqe}, which was prepared with the channel's fd: for the operations
     * that a socket with an fd names by its fd (a POLL_ADD, a connect, passing descriptors, ...).
     */
    void nameSlot(RingwireIoRegistration r, long sqe) {
        if (channel.fd == DIRECT_DESCRIPTOR_FD) {
            r.sq().setFixedFileSlot(sqe, slot);
        }
    }

    /**
     * @return whether there is no socket to name in an SQE now: the channel is closed, or its direct descriptor is
     *         still on its way to this loop's table (a task run meanwhile must not arm anything)
     */
    boolean noSocketHere() {
        int f = channel.fd;
        return f < 0 || f == DIRECT_DESCRIPTOR_FD && home == null;
    }

    /**
     * sendmsg(2) with MSG_DONTWAIT of what {@code msghdr} holds, now; a direct descriptor's goes as a SENDMSG SQE,
     * which the kernel completes as it submits it (MSG_DONTWAIT: no wait for room).
     *
     * @return bytes sent, or {@code -errno}
     */
    int sendNow(RingwireIoHandler h, MemorySegment msghdr) {
        int flags = SocketConstants.MSG_NOSIGNAL | SocketConstants.MSG_DONTWAIT;
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            return Libc.sendmsg(f, msghdr, flags);
        }
        int s = slot;
        if (home != h || s < 0) {
            return -Errno.EBADF;
        }
        return h.syncCalls().call(IORING_OP_SENDMSG, (q, ud) -> q.setFixedFileSlot(q.prepSendmsg(s, msghdr.address(), flags, ud),
            s));
    }

    // ---------------------------------------------------------------- joining and leaving a loop

    /** The channel joined the loop of {@code r}: a direct descriptor is counted there, an fd counts down to a slot. */
    void joined(RingwireIoRegistration r) {
        if (home != null) {
            joined = true;
            r.handler().counters().directDescriptors++;
        } else if (channel.fd >= 0 && !hasSlot()) {
            slot = countdown(SQES_BEFORE_FIXED_FILE);
        }
    }

    /**
     * The channel leaves the loop of {@code r} (or closes): a slot its fd took is emptied; a direct descriptor stays in
     * its table, moved by the next registration or emptied by the close.
     */
    void leaving(RingwireIoRegistration r) {
        uncount(r);
        if (home != null) {
            return;
        }
        int s = slot;
        slot = NO_SLOT;
        if (s < 0) {
            return;
        }
        RingwireIoHandler h = r.handler();
        if (channel.eventLoop().inEventLoop()) {
            h.fileTable().releaseFileSlot(s);
        } else {
            // a close from another thread: the table belongs to the loop's thread (SINGLE_ISSUER); the slot keeps
            // the socket open until then. If the loop has shut down, its ring took the table with it.
            try {
                channel.eventLoop().execute(() -> h.fileTable().releaseFileSlot(s));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                logger.debug("loop gone before the fixed-file slot of {} was emptied: its ring closed it", channel);
            }
        }
    }

    /** A direct descriptor no longer counted in the loop of {@code r}. */
    private void uncount(RingwireIoRegistration r) {
        if (joined) {
            joined = false;
            r.handler().counters().directDescriptors--;
        }
    }

    /** @return for a direct descriptor, where its socket is (for {@code toString}, from any thread) */
    String description() {
        RingwireIoHandler h = home;
        if (h != null) {
            return "slot " + slot + " of the fixed-file table of " + h.executor();
        }
        PendingSocket p = pending;
        return p != null && p.pending() ? "a direct descriptor made when the channel joins its loop"
            : "a direct descriptor moving between loops";
    }

    /**
     * A direct descriptor comes to the registration's loop before the channel is registered there: it moves from
     * the table that holds it (MSG_RING from that loop; the slot it gets here comes with a completion), or, a
     * client's, is made here (SOCKET into a slot). A loop without direct descriptors gets an fd instead. A socket with
     * an fd that joins a loop with direct descriptors goes into its table.
     */
    void arrive(RingwireIoRegistration r, Runnable then, java.util.function.Consumer<Throwable> failed) {
        AbstractRingwireStreamChannel ch = channel;
        if (ch.fd != DIRECT_DESCRIPTOR_FD) {
            if (ch.fd >= 0 && r.handler().directDescriptors()) {
                intoTable(r.handler());
            }
            then.run();
            return;
        }
        RingwireIoHandler target = r.handler();
        RingwireIoHandler from = home;
        try {
            if (pending != null) {
                makeSocket(target); // (false: made by a passing of its descriptor meanwhile, with an fd)
            } else if (from == null) {
                throw new java.nio.channels.ClosedChannelException(); // closed while it moved
            } else if (!target.directDescriptors()) {
                if (from != target) {
                    fdFrom(from, target, then, failed);
                    return;
                }
                becomeFd();
            } else if (from != target) {
                moveSlot(from, target, then, failed);
                return;
            }
        } catch (Throwable t) {
            failed.accept(t);
            return;
        }
        then.run();
    }

    /** Moves this direct descriptor from {@code from}'s table to {@code target}'s, on {@code target}'s loop. */
    private void moveSlot(RingwireIoHandler from, RingwireIoHandler target, Runnable then,
                          java.util.function.Consumer<Throwable> failed) {
        int s = slot;
        home = null;
        slot = NO_SLOT;
        long targetUserData = target.slotMoves().expectSlot(res -> {
            if (res < 0) {
                failed.accept(res == -Errno.ENFILE ? new NativeIoException("moving a connection to " + target.executor()
                    + " (its fixed-file table of " + target.counters().fixedFileSlots() + " slots is full: the loop "
                    + "holds as many connections as the open-file limit allows; more event loops hold more)", res)
                    : new NativeIoException("moving a connection to " + target.executor() + " (MSG_RING)", res));
            } else if (!channel.isOpen()) {
                target.fileTable().closeSlot(res); // closed while it moved
                failed.accept(new java.nio.channels.ClosedChannelException());
            } else {
                slot = res;
                home = target;
                then.run();
            }
        });
        try {
            from.executor().execute(() -> from.slotMoves().sendSlot(s, target, targetUserData, res -> {
                if (res < 0) {
                    try {
                        target.executor().execute(() -> target.slotMoves().slotNotComing(targetUserData, res));
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        logger.debug("{}: its move failed ({}) after its new loop ended", channel, Errno.name(res));
                    }
                }
            }));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            target.slotMoves().slotNotComing(targetUserData, -Errno.EBADF); // the loop that held it has ended, and its table
        }
    }

    /**
     * This direct descriptor becomes an fd for {@code target}, a loop without direct descriptors, on {@code target}'s
     * loop: the fd is installed on {@code from}'s loop, whose table holds the slot, and handed back to
     * {@code target}'s, a task each way, so that neither loop waits for the other (two loops each waiting for the
     * other would wait for ever).
     */
    private void fdFrom(RingwireIoHandler from, RingwireIoHandler target, Runnable then,
                        java.util.function.Consumer<Throwable> failed) {
        int s = slot;
        home = null; // moving: a call meanwhile fails with EAGAIN, a close leaves the socket to the move
        slot = NO_SLOT;
        try {
            from.executor().execute(() -> {
                int installed;
                try {
                    installed = from.syncCalls().installFd(s);
                } catch (NativeIoException | RuntimeException e) {
                    from.fileTable().closeSlot(s); // the channel fails its registration, and is closed
                    arriveWithFd(target, -1, e, then, failed);
                    return;
                }
                from.fileTable().emptySlotNow(s); // the fd holds the last reference, wherever it is closed
                arriveWithFd(target, installed, null, then, failed);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the loop that held it has ended, and its table with it
            failed.accept(new NativeIoException("moving a connection out of the table of a loop that has ended",
                -Errno.EBADF));
        }
    }

    /** The fd {@link #fdFrom} installed (or its failure) comes to {@code target}'s loop. */
    private void arriveWithFd(RingwireIoHandler target, int installed, Throwable error, Runnable then,
                              java.util.function.Consumer<Throwable> failed) {
        try {
            target.executor().execute(() -> {
                if (error != null) {
                    failed.accept(error);
                } else if (!channel.isOpen()) {
                    Libc.close(installed); // closed while it moved
                    failed.accept(new java.nio.channels.ClosedChannelException());
                } else {
                    channel.fd = installed;
                    then.run();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            if (installed >= 0) {
                Libc.close(installed);
            }
            failed.accept(e); // its new loop has ended
        }
    }

    /**
     * A client's socket, made in {@code target}'s table (or with an fd there, or with {@code target} null), and the
     * options set before: one the kernel refuses now (its value could not be checked when it was set) is logged as a
     * warning, as Netty's Bootstrap logs an option refused on an fd, and the socket goes on without it. Holds the
     * {@link PendingSocket}'s lock throughout, so an option set meanwhile waits, then goes to the socket.
     *
     * @return false if the socket was made already (elsewhere, concurrently) or the channel closed
     * @throws io.netty.channel.ChannelException the socket could not be made, as Netty's transports fail to open one
     */
    boolean makeSocket(RingwireIoHandler target) {
        PendingSocket p = pending;
        if (p == null) {
            return false;
        }
        synchronized (p) {
            if (p.made) {
                return false;
            }
            int type = SocketConstants.SOCK_STREAM | SocketConstants.SOCK_NONBLOCK;
            try {
                if (target != null && target.directDescriptors()) {
                    int s = target.syncCalls().call(IoUringConstants.IORING_OP_SOCKET,
                        (q, ud) -> q.prepSocketDirect(p.family, type, 0, -1, ud));
                    if (s == -Errno.ENFILE) {
                        throw new NativeIoException("socket into " + target.executor() + "'s fixed-file table (full, "
                            + target.counters().fixedFileSlots() + " slots)", s);
                    }
                    NativeIoException.check(s, "socket into a direct descriptor");
                    target.fileTable().slotTaken();
                    slot = s;
                    home = target;
                } else {
                    channel.fd = Sockets.open(p.family, SocketConstants.SOCK_STREAM);
                }
            } catch (NativeIoException | IllegalStateException e) {
                throw new io.netty.channel.ChannelException("a socket for " + channel, e);
            }
            p.made = true;
            pending = null;
            for (Object[] o : p.options) {
                try {
                    setBytesOption((int) o[0], (int) o[1], (byte[]) o[2]);
                } catch (NativeIoException | RuntimeException e) {
                    logger.warn("{}: an option set before its socket was made is refused now: {}", channel,
                        e.toString());
                }
            }
            return true;
        }
    }

    /**
     * A socket with an fd joins a loop with direct descriptors (a client made with its fd, a connection accepted
     * on a loop without them): it goes into the loop's table (FILES_UPDATE into a slot the kernel picks) and its fd is
     * closed. A full table leaves it on its fd.
     */
    private void intoTable(RingwireIoHandler h) {
        AbstractRingwireStreamChannel ch = channel;
        MemorySegment area = h.syncCalls().area();
        area.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, ch.fd);
        int res = h.syncCalls().call(IoUringConstants.IORING_OP_FILES_UPDATE, (q, ud) -> q.prepFilesUpdate(area.address(), 1,
            -1, ud));
        if (res != 1) {
            logger.debug("{} keeps its fd: the fixed-file table took none ({})", ch, Errno.name(res));
            return;
        }
        h.fileTable().slotTaken();
        Libc.close(ch.fd); // the table holds the socket now
        slot = area.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        home = h;
        ch.fd = DIRECT_DESCRIPTOR_FD;
    }

    /** This direct descriptor becomes an fd, for a loop without direct descriptors. */
    private void becomeFd() throws NativeIoException {
        int installed = onSlot((h, s) -> {
            int f = h.syncCalls().installFd(s);
            h.fileTable().emptySlotNow(s); // the fd holds the last reference, wherever it is closed
            return f;
        });
        home = null;
        slot = NO_SLOT;
        channel.fd = installed;
    }

    /**
     * Before close(2) leaves the loop (SO_LINGER above 0, see {@code prepareToClose}): a direct descriptor becomes an
     * fd, since the last reference to a socket that lingers must be dropped off the loop's thread, and a slot's is
     * dropped on it.
     */
    void beforeCloseOffLoop(RingwireIoRegistration r) {
        if (channel.fd != DIRECT_DESCRIPTOR_FD || home == null) {
            return;
        }
        uncount(r);
        try {
            becomeFd();
        } catch (NativeIoException e) {
            logger.debug("{}: no fd for a lingering close ({}); its slot is emptied on the loop", channel,
                e.toString());
        }
    }

    /**
     * Closes the socket once the channel has let go of it: close(2) of an fd; a direct descriptor empties its slot, on
     * its loop.
     *
     * @param f the channel's fd as it was before the close
     */
    void close(int f) throws NativeIoException {
        if (f != DIRECT_DESCRIPTOR_FD) {
            NativeIoException.check(Libc.close(f), "close");
            return;
        }
        RingwireIoHandler h = home;
        int s = slot;
        home = null;
        slot = NO_SLOT;
        PendingSocket p = pending;
        if (p != null) {
            synchronized (p) {
                p.made = true; // never: an option set from now on finds the channel closed
            }
            pending = null;
        }
        if (h == null || s < 0) {
            return; // moving between loops (the move closes it), or never made
        }
        if (h.inLoop()) {
            h.fileTable().closeSlot(s);
            return;
        }
        try {
            h.executor().execute(() -> h.fileTable().closeSlot(s));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            logger.debug("{}'s loop has ended: its ring took the slot with it", channel);
        }
    }

    // ---------------------------------------------------------------- calls outside SQEs

    /** A call on this direct descriptor's slot, on the loop whose table holds it. */
    interface SlotCall<T> {
        T call(RingwireIoHandler home, int slot) throws NativeIoException;
    }

    /**
     * Runs {@code call} on the loop whose table holds this direct descriptor: at once when called there; from a
     * thread that is no event loop (the application's, or an executor's), as a task of that loop, waited for (the ring
     * takes SQEs from its own thread only). From another event loop it fails at once: one loop never waits for
     * another, as in Netty's transports (two loops each asking for something of a channel of the other's would wait
     * for each other for ever), and without an fd there is nothing that thread could call itself. What the channel
     * knows without its socket (addresses read before, options set before the socket was made) is answered before
     * this from any thread.
     *
     * @throws NativeIoException what the call threw; EBADF when the slot is gone (closed), EAGAIN while it moves or
     *                           when asked from another event loop
     */
    <T> T onSlot(SlotCall<T> call) throws NativeIoException {
        RingwireIoHandler h = home;
        if (h == null) {
            throw new NativeIoException("a call on " + description(), channel.isOpen() ? -Errno.EAGAIN
                : -Errno.EBADF);
        }
        if (h.inLoop()) {
            int s = slot;
            if (home != h || s < 0) {
                throw new NativeIoException("a call on " + description(), -Errno.EAGAIN);
            }
            try {
                return call.call(h, s);
            } catch (IllegalStateException e) {
                // the ring could not take the call now (its SQ or CQ full): a refusal like the kernel's, for
                // the caller's ChannelException
                NativeIoException n = new NativeIoException("a call on " + description() + " ("
                    + e.getMessage() + ")", -Errno.EAGAIN);
                n.initCause(e);
                throw n;
            }
        }
        if (io.netty.util.internal.ThreadExecutorMap.currentExecutor() instanceof io.netty.channel.EventLoop other) {
            throw new NativeIoException("a call on " + description() + " from another event loop, " + other
                + ": the socket is reached only on its own loop, and one loop never waits for another; make it on "
                + h.executor() + " (channel.eventLoop().execute) or from a thread that is no event loop",
                -Errno.EAGAIN);
        }
        java.util.concurrent.CompletableFuture<T> result = new java.util.concurrent.CompletableFuture<>();
        try {
            h.executor().execute(() -> {
                try {
                    result.complete(onSlot(call));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
            return result.get();
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new NativeIoException("a call on a direct descriptor whose loop has ended", -Errno.EBADF);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NativeIoException("a call on a direct descriptor, interrupted", -Errno.EINTR);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof NativeIoException n) {
                throw n;
            }
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    /**
     * An fd of a direct descriptor's socket for passing it: installed on its loop, the caller's to close.
     *
     * @see #onSlot
     */
    int installFd() throws NativeIoException {
        return onSlot((h, s) -> h.syncCalls().installFd(s));
    }

    /**
     * @return the loop whose table holds this direct descriptor's socket, for passing it: null while it moves, for a
     *         socket with an fd, and for a client's socket still to be made
     */
    RingwireIoHandler homeForPassing() {
        return pending == null ? home : null;
    }

    /** @return whether this is a client's socket still to be made, for passing it */
    boolean toBeMade() {
        return pending != null;
    }

    /** A URING_CMD getsockopt or setsockopt on the slot, its value in the loop's sync area. */
    private static int sockCmd(RingwireIoHandler h, int slot, int op, int level, int name, int length) {
        MemorySegment area = h.syncCalls().area();
        return h.syncCalls().call(IoUringConstants.IORING_OP_URING_CMD, (q, ud) ->
            q.setFixedFileSlot(q.prepCmdSock(op, slot, level, name, area.address(), length, ud), slot));
    }

    /*
     * The calls below read pending (volatile) before fd: a client's socket is made, and fd or the slot written,
     * before pending is cleared, so a call that finds it cleared (or its socket made) sees them.
     */

    /** @return the client's {@link PendingSocket} while its socket is still to be made, else null */
    private PendingSocket stillPending() {
        PendingSocket p = pending;
        return p != null && p.pending() ? p : null;
    }

    /**
     * Runs {@code call} with the socket's fd: a direct descriptor gets one installed for the call and closed right
     * after it; a client's socket still to be made lends a fresh socket of the same family (a default, which the call
     * cannot change).
     */
    <T> T withFd(AbstractRingwireChannel.FdCall<T> call) throws NativeIoException {
        PendingSocket p = stillPending();
        if (p != null) {
            int template = Sockets.open(p.family, SocketConstants.SOCK_STREAM);
            try {
                return call.apply(template);
            } finally {
                Libc.close(template);
            }
        }
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            return call.apply(f);
        }
        return onSlot((h, s) -> {
            int installed = h.syncCalls().installFd(s);
            try {
                return call.apply(installed);
            } finally {
                Libc.close(installed);
            }
        });
    }

    /** getsockopt of an int. */
    int getIntOption(int level, int name) throws NativeIoException {
        PendingSocket p = pending;
        byte[] value = p != null ? p.value(level, name) : null;
        if (value != null) {
            return java.nio.ByteBuffer.wrap(value).order(java.nio.ByteOrder.nativeOrder()).getInt();
        }
        if (p != null && p.pending()) {
            return withFd(f -> Sockets.getInt(f, level, name));
        }
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            return Sockets.getInt(f, level, name);
        }
        if (level != SocketConstants.SOL_SOCKET) {
            return withFd(fd -> Sockets.getInt(fd, level, name)); // URING_CMD's getsockopt takes SOL_SOCKET only
        }
        return onSlot((h, s) -> {
            NativeIoException.check(sockCmd(h, s, IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, level, name, 4),
                "getsockopt(" + level + ", " + name + ")");
            return h.syncCalls().area().get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        });
    }

    /** setsockopt of an int. */
    void setIntOption(int level, int name, int value) throws NativeIoException {
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD && pending == null) {
            Sockets.setInt(f, level, name, value);
            return;
        }
        setBytesOption(level, name, java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder())
            .putInt(value).array());
    }

    /** getsockopt of up to {@code length} bytes: what the kernel wrote. */
    byte[] getBytesOption(int level, int name, int length) throws NativeIoException {
        PendingSocket p = pending;
        byte[] value = p != null ? p.value(level, name) : null;
        if (value != null) {
            return value;
        }
        if (p != null && p.pending()) {
            return withFd(f -> Sockets.getBytes(f, level, name, length));
        }
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            return Sockets.getBytes(f, level, name, length);
        }
        if (level != SocketConstants.SOL_SOCKET || length > SyncCalls.AREA_BYTES) {
            return withFd(fd -> Sockets.getBytes(fd, level, name, length));
        }
        return onSlot((h, s) -> {
            int n = NativeIoException.check(sockCmd(h, s, IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, level, name,
                length), "getsockopt(" + level + ", " + name + ")");
            return h.syncCalls().area().asSlice(0, Math.min(n, length)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        });
    }

    /** setsockopt of bytes; a client's socket still to be made keeps them for it. */
    void setBytesOption(int level, int name, byte[] value) throws NativeIoException {
        PendingSocket p = pending;
        if (p != null && p.add(level, name, value)) {
            return; // (false: made meanwhile, pending cleared: to the socket)
        }
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            Sockets.setBytes(f, level, name, value);
            return;
        }
        if (value.length > SyncCalls.AREA_BYTES) {
            withFd(fd -> {
                Sockets.setBytes(fd, level, name, value);
                return null;
            });
            return;
        }
        onSlot((h, s) -> {
            MemorySegment.copy(value, 0, h.syncCalls().area(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, value.length);
            NativeIoException.check(sockCmd(h, s, IoUringConstants.SOCKET_URING_OP_SETSOCKOPT, level, name,
                value.length), "setsockopt(" + level + ", " + name + ")");
            return null;
        });
    }

    /**
     * bind(2) of this direct descriptor: a BIND SQE on its slot [6.11], else on an fd installed for the call.
     *
     * @param ipv6 whether the socket is AF_INET6 (how to write an IPv4 address)
     */
    void bindDirectDescriptor(SocketAddress address, boolean ipv6) throws NativeIoException {
        if (!io.ringwire.uring.IoUringProbe.get().isBindSupported()) {
            withFd(f -> {
                Sockets.bind(f, address);
                return null;
            });
            return;
        }
        onSlot((h, s) -> {
            MemorySegment sa = h.syncCalls().area().asSlice(0, SockAddr.STORAGE_SIZE);
            int len = SockAddr.write(address, sa, ipv6);
            return NativeIoException.check(h.syncCalls().call(IoUringConstants.IORING_OP_BIND,
                (q, ud) -> q.setFixedFileSlot(q.prepBind(s, sa.address(), len, ud), s)), "bind " + address);
        });
    }

    /**
     * The peer's address of a direct descriptor without an fd: getsockopt(SO_PEERNAME) through URING_CMD, which
     * takes exactly the address's length ({@code length}: 16 for IPv4, 28 for IPv6).
     */
    SocketAddress directDescriptorPeerAddress(int length) throws NativeIoException {
        return onSlot((h, s) -> SockAddr.read(h.syncCalls().area(), NativeIoException.check(sockCmd(h, s,
            IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, SocketConstants.SOL_SOCKET, SocketConstants.SO_PEERNAME,
            length), "getsockopt(SO_PEERNAME)")));
    }

    /** shutdown(2) of the socket; a direct descriptor's goes as a SHUTDOWN SQE, waited for. */
    void shutdown(int how, String what) throws NativeIoException {
        int f = channel.fd;
        if (f != DIRECT_DESCRIPTOR_FD) {
            NativeIoException.check(Libc.shutdown(f, how), what);
            return;
        }
        onSlot((h, s) -> NativeIoException.check(h.syncCalls().call(IoUringConstants.IORING_OP_SHUTDOWN,
            (q, ud) -> q.setFixedFileSlot(q.prepShutdown(s, how, ud), s)), what));
    }

    /** shutdown(SHUT_RD) after the peer's EOF, its result not needed: a direct descriptor's SQE is not waited for. */
    void shutdownAfterEof(RingwireIoRegistration r) {
        int f = channel.fd;
        RingwireIoHandler h = home;
        int s = slot;
        if (f != DIRECT_DESCRIPTOR_FD) {
            Libc.shutdown(f, SocketConstants.SHUT_RD);
        } else if (h != null && s >= 0 && r != null && r.handler() == h && r.reserveSqe()) {
            r.sq().setFixedFileSlot(r.sq().prepShutdown(s, SocketConstants.SHUT_RD,
                UserData.encode(UserData.HANDLER_ID, IoUringConstants.IORING_OP_SHUTDOWN, 0)), s);
        }
    }

    /**
     * A client on direct descriptors before it joins a loop: its socket's family, and the options set meanwhile, to
     * be set on the socket once the loop has made it. The application's threads set and read them while the loop
     * makes the socket: each call holds the object's lock, and so does the making, so an option set goes either to
     * this list, which the making then puts on the socket, or, once it is made, to the socket.
     */
    static final class PendingSocket {
        final int family;
        /** (level, optname, value) in the order they were set. Guarded by this. */
        private final java.util.List<Object[]> options = new java.util.ArrayList<>();
        /** Whether the socket was made (or the channel closed before): options go to it now. Guarded by this. */
        private boolean made;

        PendingSocket(int family) {
            this.family = family;
        }

        /**
         * Keeps an option for the socket, once a socket of the same family has taken the value: one the kernel
         * refuses fails here, as it fails at once on an fd. Without an fd to spare for that check (EMFILE, ENFILE:
         * a process that holds its connections in slots may have none), it is checked when the socket is made.
         *
         * @return false if the socket was made meanwhile: set it there
         * @throws NativeIoException the kernel refused the value
         */
        synchronized boolean add(int level, int name, byte[] value) throws NativeIoException {
            if (made) {
                return false;
            }
            int template = -1;
            try {
                template = Sockets.open(family, SocketConstants.SOCK_STREAM);
            } catch (NativeIoException e) {
                if (e.errno() != Errno.EMFILE && e.errno() != Errno.ENFILE) {
                    throw e;
                }
            }
            if (template >= 0) {
                try {
                    Sockets.setBytes(template, level, name, value);
                } finally {
                    Libc.close(template);
                }
            }
            options.add(new Object[] {level, name, value.clone()});
            return true;
        }

        /** @return the value last set for the option, or null (none, or the socket is made) */
        synchronized byte[] value(int level, int name) {
            for (int i = options.size() - 1; i >= 0 && !made; i--) {
                Object[] o = options.get(i);
                if ((int) o[0] == level && (int) o[1] == name) {
                    return ((byte[]) o[2]).clone();
                }
            }
            return null;
        }

        /** @return whether the socket is still to be made */
        synchronized boolean pending() {
            return !made;
        }
    }
}
