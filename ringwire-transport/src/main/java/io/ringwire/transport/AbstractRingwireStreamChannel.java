package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.DuplexChannelConfig;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.PlatformDependent;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;
import io.ringwire.uring.SubmissionQueue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.TimeUnit;

import static io.ringwire.uring.IoUringConstants.IORING_CQE_F_SOCK_NONEMPTY;
import static io.ringwire.uring.IoUringConstants.IORING_OP_CONNECT;
import static io.ringwire.uring.IoUringConstants.IORING_OP_POLL_ADD;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECV;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECVMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG_ZC;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND_ZC;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A stream connection on io_uring: what TCP and Unix domain stream sockets share.
 *
 * <p><b>Reads</b> come from one multishot RECV [6.0] per connection, into the loop's shared provided buffer ring;
 * each CQE's bytes are copied into a buffer from the channel's allocator and the ring slot is returned at once, so the
 * ring never starves for long and no slot outlives its CQE. With {@code autoRead} off, each {@code read()} issues one
 * single-shot RECV from the same ring; turning {@code autoRead} off leaves the multishot one armed until bytes arrive
 * while paused, which then wait for the next {@code read()} while it is cancelled: the transport stops consuming when
 * the application stops reading, and a handler that pauses for every message costs no cancel and re-arm per message.
 * {@code channelReadComplete} fires once per batch of completions.
 *
 * <p><b>Bulk streams</b> switch to direct receives: when two receives in a row fill a whole ring buffer and the
 * kernel says more is waiting ({@code IORING_CQE_F_SOCK_NONEMPTY}), the multishot RECV is cancelled and, once its
 * last completion is in, single-shot RECVs go straight into a buffer from the channel's allocator (sized by its
 * {@link RecvByteBufAllocator}, up to 64 KiB by default): no copy, one completion per large read, and each CQE's bytes
 * are where that SQE said, whatever order other completions come in. Four reads in a row that a ring buffer could
 * have held switch back, so an idle connection pins no buffer. Never both at once: the direct RECV is armed only
 * after the multishot one has ended, which keeps the byte order. Off with
 * {@link RingwireIoHandlerConfig#directReceive()}.
 *
 * <p><b>Writes</b>: {@code flush()} only marks the channel; just before the loop's next {@code io_uring_enter} all
 * flushed buffers are gathered into one SEND (one buffer) or SENDMSG (up to 1024 iovecs, capped at
 * {@link RingwireIoHandlerConfig#maxBytesPerWrite()} bytes), so one iteration's flushes leave in one SQE. At most one
 * write is in flight per channel, so order holds and the bytes the kernel holds are bounded; its completion removes
 * what was written (a short write continues from there), which updates writability synchronously. A bulk stream's
 * flush from channelReadComplete is the exception: it is written at once with a non-blocking sendmsg(2), so that its
 * buffers leave while they are in the CPU's cache ({@link RingwireCounters#inlineWrites()}); what the socket does not
 * take goes with the next enter as above.
 */
abstract class AbstractRingwireStreamChannel extends AbstractRingwireChannel implements DuplexChannel {

    /** The channel's options; set by the subclass's constructor. */
    DuplexChannelConfig config;

    /** Bulk mode: receives go straight into allocator buffers, one single-shot RECV at a time. */
    private boolean bulk;

    /**
     * Bytes a bulk stream's read loop hands up the pipeline before channelReadComplete and the flush that follows it:
     * four receives of 64 KiB, so that the frames a decoder sliced from them are still in the CPU's cache when they
     * are written (the allocator's whole budget, 1 MiB, lets them fall out of it, and holds more memory at once).
     */
    static final int READ_LOOP_BYTES = 256 * 1024;

    /**
     * This socket's slot in the loop's fixed-file table (≥ 0); -1 for none (not registered, or the table refused);
     * below -1, registered and counting its SQEs up to -1, when it takes one ({@link #nameSlotOrFd}).
     */
    private int fileSlot = -1;
    /**
     * A connection on a direct descriptor ({@link #DIRECT_FD}): the loop whose fixed-file table holds its socket in
     * {@link #fileSlot}. Null while it moves between loops, before a client's socket is made, and for connections
     * with an fd.
     */
    private volatile RingwireIoHandler slotHome;
    /** A direct descriptor counted in its loop's {@link RingwireCounters#directDescriptors()}. */
    private boolean directJoined;
    /** A client on direct descriptors whose socket is made when it joins its loop: what it needs until then. */
    private volatile PendingSocket pendingSocket;
    /** Bytes an inline write sent whose buffers are still being removed from the outbound buffer. */
    private long inlineUnsettled;
    /** The last frame an inline write sent, until the next receive has gone up ({@link #holdAfterInlineWrite}). */
    private ByteBuf heldAfterInlineWrite;
    /** The buffer the in-flight direct RECV writes into; the channel owns it until the CQE. */
    private ByteBuf directBuf;
    /** Consecutive multishot receives that filled a ring buffer with more waiting, and direct ones that did not. */
    private int fullRecvs;
    private int smallRecvs;
    /** The shared ring was empty, and at its largest, for this connection's last receive: the next one is direct. */
    private boolean ringDry;
    private boolean readInBatch;
    /** The last receive's CQE said more bytes were waiting in the socket (IORING_CQE_F_SOCK_NONEMPTY). */
    private boolean moreWaiting;
    private boolean eofSeen;
    /**
     * The peer has closed (its FIN seen while reading was paused): read on to the EOF whatever autoRead and the
     * allocator's budget say, delivering every byte, as Netty's epoll does on EPOLLRDHUP; then the close, or the input
     * shutdown with half-closure allowed.
     */
    private boolean drainingToEof;
    private boolean recvNeedsRearm;
    /**
     * The write in flight was settled from its CQE, seen ahead of its turn by a close in the same batch
     * ({@code settleWritePosted}): when that CQE's turn comes it only ends the write.
     */
    private boolean writeSettledAhead;
    private IOException readError;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;

    /**
     * The messages of descriptors passed in flight (Unix domain sockets, SCM_RIGHTS), made at the first: most
     * connections never pass one, and an idle connection should not carry their fields.
     */
    private static final class Descriptors {
        /** The message of the RECVMSG in flight that takes a descriptor; the channel owns it until the CQE. */
        ByteBuf recv;
        /** The message of the SENDMSG in flight that passes one; the channel owns it until the CQE. */
        ByteBuf send;
        /** An fd installed to pass a direct descriptor's socket (it has none), closed when that SENDMSG ends. */
        int installed = -1;
        /**
         * The descriptor being passed whose socket is a direct descriptor in another loop's table: that loop installs
         * an fd of it ({@link #fetched} once it has come); null when none is asked for.
         */
        FileDescriptor fetching;
        /** The fd another loop installed for {@link #fetching}, not yet passed; -1 for none. */
        int fetched = -1;
    }

    private Descriptors descriptors;

    /** @return {@link #descriptors}, made at the first descriptor passed */
    private Descriptors descriptors() {
        Descriptors d = descriptors;
        return d != null ? d : (descriptors = new Descriptors());
    }

    /** Bytes received but not yet delivered, because autoRead is off and the read loop's budget ran out. */
    private ByteBuf pendingInput;
    /**
     * What a FileRegion write needs, made at the channel's first FileRegion: most connections never send one, and
     * an idle connection should not carry its fields.
     */
    private static final class FileWrite {
        /** Bytes of the FileRegion being written, copied out of it and not yet sent; the channel owns them. */
        ByteBuf chunk;
        /** The DefaultFileRegion being sent with sendfile(2), the file's fd (-1: copy it instead), who closes it. */
        DefaultFileRegion sendfileRegion;
        int sendfileFd = -1;
        boolean sendfileOwnsFd;
        /** sendfile's native off_t, made on first use. */
        MemorySegment sendfileOffset;
    }

    /** Null until the first FileRegion. */
    private FileWrite files;
    /** user_data data of the POLL_ADD that waits for socket space between two sendfile calls. */
    static final int WRITE_POLL = 1;
    /** user_data data of the SENDMSG that passes a descriptor (a gathered write's SENDMSG has 0). */
    static final int DESCRIPTOR = 1;

    private boolean pendingInputTaskScheduled;

    /** A connect in progress (client channels only, and only until it completes). */
    private static final class Connecting {
        final ChannelPromise promise;
        final SocketAddress remote;
        Future<?> timeout;

        Connecting(ChannelPromise promise, SocketAddress remote) {
            this.promise = promise;
            this.remote = remote;
        }
    }

    private Connecting connecting;

    /** Null until the channel's first zero-copy send. */
    private ZeroCopySends zeroCopy;

    /** @return bytes from which a write goes as a zero-copy send; 0: never (TCP channels have the option) */
    int sendZcThreshold() {
        return 0;
    }

    private ZeroCopySends zeroCopySends() {
        ZeroCopySends z = zeroCopy;
        return z != null ? z : (zeroCopy = new ZeroCopySends(this));
    }

    AbstractRingwireStreamChannel(Channel parent, int fd, boolean active) {
        super(parent, fd, active);
    }

    /**
     * A connection accepted into a direct descriptor.
     *
     * @param slot its slot in {@code home}'s fixed-file table
     * @param home the accepting loop
     */
    AbstractRingwireStreamChannel(Channel parent, int slot, RingwireIoHandler home) {
        super(parent, DIRECT_FD, true);
        this.fileSlot = slot;
        this.slotHome = home;
    }

    /**
     * A client. With {@code fd} {@link #DIRECT_FD} its socket is made in the fixed-file table of the loop it joins
     * (SOCKET into a slot), or with an fd if that loop has no direct descriptors; options set before that wait in
     * {@link PendingSocket}.
     *
     * @param family {@code AF_INET}, {@code AF_INET6} or {@code AF_UNIX} for a socket made later; else ignored
     * @param fd     the socket, or {@link #DIRECT_FD}
     */
    AbstractRingwireStreamChannel(int family, int fd) {
        super(null, fd, false);
        this.pendingSocket = fd == DIRECT_FD ? new PendingSocket(family) : null;
    }

    /** No family: a client channel that opened its socket with an fd. */
    static final int AF_NONE = -1;

    /**
     * bind(2) of this direct descriptor: a BIND SQE on its slot [6.11], else on an fd installed for the call.
     *
     * @param ipv6 whether the socket is AF_INET6 (how to write an IPv4 address)
     */
    void bindDirect(SocketAddress address, boolean ipv6) throws NativeIoException {
        if (!io.ringwire.uring.IoUringProbe.get().isBindSupported()) {
            withFd(f -> {
                Sockets.bind(f, address);
                return null;
            });
            return;
        }
        onSlot((h, slot) -> {
            MemorySegment sa = h.syncCalls().area().asSlice(0, SockAddr.STORAGE_SIZE);
            int len = SockAddr.write(address, sa, ipv6);
            return NativeIoException.check(h.syncCalls().call(IoUringConstants.IORING_OP_BIND,
                (q, ud) -> q.setFixedFileSlot(q.prepBind(slot, sa.address(), len, ud), slot)), "bind " + address);
        });
    }

    /** @return the local and remote addresses known without asking the kernel, for {@code toString} */
    String cachedAddresses() {
        return cachedLocalAddress() + " -> " + cachedRemoteAddress();
    }

    private FileWrite files() {
        if (files == null) {
            files = new FileWrite();
        }
        return files;
    }

    private void closeSendfileFd() {
        FileWrite f = files;
        if (f == null) {
            return;
        }
        if (f.sendfileFd >= 0 && f.sendfileOwnsFd) {
            Libc.close(f.sendfileFd);
        }
        f.sendfileFd = -1;
        f.sendfileRegion = null;
    }

    private void releaseFileChunk() {
        if (files != null && files.chunk != null) {
            files.chunk.release();
            files.chunk = null;
        }
    }

    /**
     * Writes the address to connect to in native memory.
     *
     * @param remote where to connect
     * @param dst    {@link SockAddr#STORAGE_SIZE} bytes
     * @return the address length
     */
    abstract int writeRemoteAddress(SocketAddress remote, MemorySegment dst);

    // ------------------------------------------------------------------------------------------ direct descriptors

    /**
     * A client on direct descriptors before it joins a loop: its socket's family, and the options set meanwhile, to
     * be set on the socket once the loop has made it. The application's threads set and read them while the loop
     * makes the socket: each call holds the object's lock, and so does the making, so an option set goes either to
     * this list, which the making then puts on the socket, or, once it is made, to the socket.
     */
    private static final class PendingSocket {
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

    @Override
    String directDescription() {
        RingwireIoHandler home = slotHome;
        if (home != null) {
            return "slot " + fileSlot + " of the fixed-file table of " + home.executor();
        }
        PendingSocket p = pendingSocket;
        return p != null && p.pending() ? "a direct descriptor made when the channel joins its loop"
            : "a direct descriptor moving between loops";
    }

    /**
     * A direct descriptor comes to the registration's loop before the channel is registered there: it moves from
     * the table that holds it (MSG_RING from that loop; the slot it gets here comes with a completion), or, a
     * client's, is made here (SOCKET into a slot). A loop without direct descriptors gets an fd instead.
     */
    @Override
    void arrive(RingwireIoRegistration r, Runnable then, java.util.function.Consumer<Throwable> failed) {
        if (fd != DIRECT_FD) {
            if (fd >= 0 && r.handler().directDescriptors()) {
                intoTable(r.handler());
            }
            then.run();
            return;
        }
        RingwireIoHandler target = r.handler();
        RingwireIoHandler from = slotHome;
        try {
            if (pendingSocket != null) {
                makeSocket(target); // (false: made by a passing of its descriptor meanwhile, with an fd)
            } else if (from == null) {
                throw new java.nio.channels.ClosedChannelException(); // closed while it moved
            } else if (!target.directDescriptors()) {
                if (from != target) {
                    fdFrom(from, target, then, failed);
                    return;
                }
                becomeFd(from);
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
        int slot = fileSlot;
        slotHome = null;
        fileSlot = -1;
        long targetUserData = target.slotMoves().expectSlot(res -> {
            if (res < 0) {
                failed.accept(res == -Errno.ENFILE ? new NativeIoException("moving a connection to " + target.executor()
                    + " (its fixed-file table of " + target.counters().fixedFileSlots() + " slots is full: the loop "
                    + "holds as many connections as the open-file limit allows; more event loops hold more)", res)
                    : new NativeIoException("moving a connection to " + target.executor() + " (MSG_RING)", res));
            } else if (!isOpen()) {
                target.fileTable().closeSlot(res); // closed while it moved
                failed.accept(new java.nio.channels.ClosedChannelException());
            } else {
                fileSlot = res;
                slotHome = target;
                then.run();
            }
        });
        try {
            from.executor().execute(() -> from.slotMoves().sendSlot(slot, target, targetUserData, res -> {
                if (res < 0) {
                    try {
                        target.executor().execute(() -> target.slotMoves().slotNotComing(targetUserData, res));
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        logger.debug("{}: its move failed ({}) after its new loop ended", this, Errno.name(res));
                    }
                }
            }));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the loop that held it has ended, and its table
            target.slotMoves().slotNotComing(targetUserData, -Errno.EBADF);
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
        int slot = fileSlot;
        slotHome = null; // moving: a call meanwhile fails with EAGAIN, a close leaves the socket to the move
        fileSlot = -1;
        try {
            from.executor().execute(() -> {
                int installed;
                try {
                    installed = from.syncCalls().installFd(slot);
                } catch (NativeIoException | RuntimeException e) {
                    from.fileTable().closeSlot(slot); // the channel fails its registration, and is closed
                    arriveWithFd(target, -1, e, then, failed);
                    return;
                }
                from.fileTable().emptySlotNow(slot); // the fd holds the last reference, wherever it is closed
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
                } else if (!isOpen()) {
                    Libc.close(installed); // closed while it moved
                    failed.accept(new java.nio.channels.ClosedChannelException());
                } else {
                    fd = installed;
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
    private boolean makeSocket(RingwireIoHandler target) {
        PendingSocket p = pendingSocket;
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
                    int slot = target.syncCalls().call(IoUringConstants.IORING_OP_SOCKET,
                        (q, ud) -> q.prepSocketDirect(p.family, type, 0, -1, ud));
                    if (slot == -Errno.ENFILE) {
                        throw new NativeIoException("socket into " + target.executor() + "'s fixed-file table (full, "
                            + target.counters().fixedFileSlots() + " slots)", slot);
                    }
                    NativeIoException.check(slot, "socket into a direct descriptor");
                    target.fileTable().slotTaken();
                    fileSlot = slot;
                    slotHome = target;
                } else {
                    fd = Sockets.open(p.family, SocketConstants.SOCK_STREAM);
                }
            } catch (NativeIoException | IllegalStateException e) {
                throw new io.netty.channel.ChannelException("a socket for " + this, e);
            }
            p.made = true;
            pendingSocket = null;
            for (Object[] o : p.options) {
                try {
                    setBytesOption((int) o[0], (int) o[1], (byte[]) o[2]);
                } catch (NativeIoException | RuntimeException e) {
                    logger.warn("{}: an option set before its socket was made is refused now: {}", this, e.toString());
                }
            }
            return true;
        }
    }

    /**
     * A connection with an fd joins a loop with direct descriptors (a client made with its fd, a connection accepted
     * on a loop without them): its socket goes into the loop's table (FILES_UPDATE into a slot the kernel picks) and
     * its fd is closed. A full table leaves it on its fd.
     */
    private void intoTable(RingwireIoHandler h) {
        MemorySegment area = h.syncCalls().area();
        area.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, fd);
        int res = h.syncCalls().call(IoUringConstants.IORING_OP_FILES_UPDATE,
            (q, ud) -> q.prepFilesUpdate(area.address(), 1, -1, ud));
        if (res != 1) {
            logger.debug("{} keeps its fd: the fixed-file table took none ({})", this, Errno.name(res));
            return;
        }
        h.fileTable().slotTaken();
        Libc.close(fd); // the table holds the socket now
        fileSlot = area.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        slotHome = h;
        fd = DIRECT_FD;
    }

    /** This direct descriptor becomes an fd, for a loop without direct descriptors. */
    private void becomeFd(RingwireIoHandler from) throws NativeIoException {
        int installed = onSlot((h, slot) -> {
            int f = h.syncCalls().installFd(slot);
            h.fileTable().emptySlotNow(slot); // the fd holds the last reference, wherever it is closed
            return f;
        });
        slotHome = null;
        fileSlot = -1;
        fd = installed;
    }

    @Override
    void closeSocket(int f) throws Exception {
        if (f != DIRECT_FD) {
            super.closeSocket(f);
            return;
        }
        RingwireIoHandler home = slotHome;
        int slot = fileSlot;
        slotHome = null;
        fileSlot = -1;
        PendingSocket p = pendingSocket;
        if (p != null) {
            synchronized (p) {
                p.made = true; // never: an option set from now on finds the channel closed
            }
            pendingSocket = null;
        }
        if (home == null || slot < 0) {
            return; // moving between loops (the move closes it), or never made
        }
        if (home.inLoop()) {
            home.fileTable().closeSlot(slot);
            return;
        }
        try {
            home.executor().execute(() -> home.fileTable().closeSlot(slot));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            logger.debug("{}'s loop has ended: its ring took the slot with it", this);
        }
    }

    /** A call on this direct descriptor's slot, on the loop whose table holds it. */
    private interface SlotCall<T> {
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
    private <T> T onSlot(SlotCall<T> call) throws NativeIoException {
        RingwireIoHandler home = slotHome;
        if (home == null) {
            throw new NativeIoException("a call on " + directDescription(), isOpen() ? -Errno.EAGAIN : -Errno.EBADF);
        }
        if (home.inLoop()) {
            int slot = fileSlot;
            if (slotHome != home || slot < 0) {
                throw new NativeIoException("a call on " + directDescription(), -Errno.EAGAIN);
            }
            try {
                return call.call(home, slot);
            } catch (IllegalStateException e) {
                // the ring could not take the call now (its SQ or CQ full): a refusal like the kernel's, for
                // the caller's ChannelException
                NativeIoException n = new NativeIoException("a call on " + directDescription() + " ("
                    + e.getMessage() + ")", -Errno.EAGAIN);
                n.initCause(e);
                throw n;
            }
        }
        if (io.netty.util.internal.ThreadExecutorMap.currentExecutor() instanceof io.netty.channel.EventLoop other) {
            throw new NativeIoException("a call on " + directDescription() + " from another event loop, " + other
                + ": the socket is reached only on its own loop, and one loop never waits for another; make it on "
                + home.executor() + " (channel.eventLoop().execute) or from a thread that is no event loop",
                -Errno.EAGAIN);
        }
        java.util.concurrent.CompletableFuture<T> result = new java.util.concurrent.CompletableFuture<>();
        try {
            home.executor().execute(() -> {
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

    /** A URING_CMD getsockopt or setsockopt on the slot, its value in the loop's sync area. */
    private static int sockCmd(RingwireIoHandler h, int slot, int op, int level, int name, int length) {
        MemorySegment area = h.syncCalls().area();
        return h.syncCalls().call(IoUringConstants.IORING_OP_URING_CMD, (q, ud) ->
            q.setFixedFileSlot(q.prepCmdSock(op, slot, level, name, area.address(), length, ud), slot));
    }

    /*
     * The calls below read pendingSocket (volatile) before fd: a client's socket is made, and fd or the slot written,
     * before pendingSocket is cleared, so a call that finds it cleared (or its socket made) sees them.
     */

    /** @return the client's {@link PendingSocket} while its socket is still to be made, else null */
    private PendingSocket stillPending() {
        PendingSocket p = pendingSocket;
        return p != null && p.pending() ? p : null;
    }

    @Override
    <T> T withFd(FdCall<T> call) throws NativeIoException {
        PendingSocket p = stillPending();
        if (p != null) {
            // no socket yet: the call sees a fresh one of the same family (a default), which it cannot change
            int template = Sockets.open(p.family, SocketConstants.SOCK_STREAM);
            try {
                return call.apply(template);
            } finally {
                Libc.close(template);
            }
        }
        if (fd != DIRECT_FD) {
            return call.apply(fd);
        }
        return onSlot((h, slot) -> {
            int installed = h.syncCalls().installFd(slot);
            try {
                return call.apply(installed);
            } finally {
                Libc.close(installed);
            }
        });
    }

    @Override
    int getIntOption(int level, int name) throws NativeIoException {
        PendingSocket p = pendingSocket;
        byte[] pending = p != null ? p.value(level, name) : null;
        if (pending != null) {
            return java.nio.ByteBuffer.wrap(pending).order(java.nio.ByteOrder.nativeOrder()).getInt();
        }
        if (p != null && p.pending()) {
            return withFd(f -> Sockets.getInt(f, level, name));
        }
        if (fd != DIRECT_FD) {
            return super.getIntOption(level, name);
        }
        if (level != SocketConstants.SOL_SOCKET) {
            return withFd(f -> Sockets.getInt(f, level, name)); // URING_CMD's getsockopt takes SOL_SOCKET only
        }
        return onSlot((h, slot) -> {
            NativeIoException.check(sockCmd(h, slot, IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, level, name, 4),
                "getsockopt(" + level + ", " + name + ")");
            return h.syncCalls().area().get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        });
    }

    @Override
    void setIntOption(int level, int name, int value) throws NativeIoException {
        if (fd != DIRECT_FD && pendingSocket == null) {
            super.setIntOption(level, name, value);
            return;
        }
        setBytesOption(level, name, java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder())
            .putInt(value).array());
    }

    @Override
    byte[] getBytesOption(int level, int name, int length) throws NativeIoException {
        PendingSocket p = pendingSocket;
        byte[] pending = p != null ? p.value(level, name) : null;
        if (pending != null) {
            return pending;
        }
        if (p != null && p.pending()) {
            return withFd(f -> Sockets.getBytes(f, level, name, length));
        }
        if (fd != DIRECT_FD) {
            return super.getBytesOption(level, name, length);
        }
        if (level != SocketConstants.SOL_SOCKET || length > SyncCalls.AREA_BYTES) {
            return withFd(f -> Sockets.getBytes(f, level, name, length));
        }
        return onSlot((h, slot) -> {
            int n = NativeIoException.check(sockCmd(h, slot, IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, level, name,
                length), "getsockopt(" + level + ", " + name + ")");
            return h.syncCalls().area().asSlice(0, Math.min(n, length))
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        });
    }

    @Override
    void setBytesOption(int level, int name, byte[] value) throws NativeIoException {
        PendingSocket p = pendingSocket;
        if (p != null && p.add(level, name, value)) {
            return; // (false: made meanwhile, pendingSocket cleared: to the socket)
        }
        if (fd != DIRECT_FD) {
            super.setBytesOption(level, name, value);
            return;
        }
        if (value.length > SyncCalls.AREA_BYTES) {
            withFd(f -> {
                Sockets.setBytes(f, level, name, value);
                return null;
            });
            return;
        }
        onSlot((h, slot) -> {
            MemorySegment.copy(value, 0, h.syncCalls().area(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0,
                value.length);
            NativeIoException.check(sockCmd(h, slot, IoUringConstants.SOCKET_URING_OP_SETSOCKOPT, level, name,
                value.length), "setsockopt(" + level + ", " + name + ")");
            return null;
        });
    }

    /**
     * The peer's address of a direct descriptor without an fd: getsockopt(SO_PEERNAME) through URING_CMD, which
     * takes exactly the address's length ({@code length}: 16 for IPv4, 28 for IPv6).
     */
    SocketAddress directPeerAddress(int length) throws NativeIoException {
        return onSlot((h, slot) -> SockAddr.read(h.syncCalls().area(), NativeIoException.check(sockCmd(h, slot,
            IoUringConstants.SOCKET_URING_OP_GETSOCKOPT, SocketConstants.SOL_SOCKET, SocketConstants.SO_PEERNAME,
            length), "getsockopt(SO_PEERNAME)")));
    }

    /** shutdown(2) of the socket; a direct descriptor's goes as a SHUTDOWN SQE, waited for. */
    private void shutdownSocket(int how, String what) throws NativeIoException {
        if (fd != DIRECT_FD) {
            NativeIoException.check(Libc.shutdown(fd, how), what);
            return;
        }
        onSlot((h, slot) -> NativeIoException.check(h.syncCalls().call(IoUringConstants.IORING_OP_SHUTDOWN,
            (q, ud) -> q.setFixedFileSlot(q.prepShutdown(slot, how, ud), slot)), what));
    }

    /** shutdown(SHUT_RD) after the peer's EOF, its result not needed: a direct descriptor's SQE is not waited for. */
    private void shutdownAfterEof() {
        RingwireIoRegistration r = registration;
        if (fd != DIRECT_FD) {
            Libc.shutdown(fd, SocketConstants.SHUT_RD);
        } else if (slotHome != null && fileSlot >= 0 && r != null && r.handler() == slotHome && r.reserveSqe()) {
            r.sq().setFixedFileSlot(r.sq().prepShutdown(fileSlot, SocketConstants.SHUT_RD,
                UserData.encode(UserData.HANDLER_ID, IoUringConstants.IORING_OP_SHUTDOWN, 0)), fileSlot);
        }
    }

    /**
     * sendmsg(2) with MSG_DONTWAIT of what {@code msghdr} holds, now; a direct descriptor's goes as a SENDMSG SQE,
     * which the kernel completes as it submits it (MSG_DONTWAIT: no wait for room).
     *
     * @return bytes sent, or {@code -errno}
     */
    private int sendNow(RingwireIoHandler h, MemorySegment msghdr) {
        int flags = SocketConstants.MSG_NOSIGNAL | SocketConstants.MSG_DONTWAIT;
        if (fd != DIRECT_FD) {
            return Libc.sendmsg(fd, msghdr, flags);
        }
        int slot = fileSlot;
        if (slotHome != h || slot < 0) {
            return -Errno.EBADF;
        }
        return h.syncCalls().call(IORING_OP_SENDMSG,
            (q, ud) -> q.setFixedFileSlot(q.prepSendmsg(slot, msghdr.address(), flags, ud), slot));
    }

    /**
     * Before close(2) leaves the loop (SO_LINGER above 0, see {@code prepareToClose}): a direct descriptor becomes an
     * fd, since the last reference to a socket that lingers must be dropped off the loop's thread, and a slot's is
     * dropped on it.
     */
    @Override
    void beforeCloseOffLoop(RingwireIoRegistration r) {
        if (fd != DIRECT_FD || slotHome == null) {
            return;
        }
        if (directJoined) {
            directJoined = false;
            r.handler().counters().directDescriptors--;
        }
        try {
            becomeFd(slotHome);
        } catch (NativeIoException e) {
            logger.debug("{}: no fd for a lingering close ({}); its slot is emptied on the loop", this, e.toString());
        }
    }

    // ------------------------------------------------------------------------------------------ half-closure

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive() && !isOpen();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive() && !isOpen();
    }

    @Override
    public boolean isShutdown() {
        return (inputShutdown && outputShutdown) || !isActive() && !isOpen();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            shutdownOutput0(promise);
        } else {
            eventLoop().execute(() -> shutdownOutput0(promise));
        }
        return promise;
    }

    private void shutdownOutput0(ChannelPromise promise) {
        StreamUnsafe u = (StreamUnsafe) unsafe();
        u.writeNowOrKeepForKernel(); // the outbound buffer is failed next: what was flushed goes out first
        u.shutdownOutput(promise);
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        trace("shutdownOutput");
        if (!isOpen()) {
            throw new java.nio.channels.ClosedChannelException();
        }
        if (!active) {
            throw new java.nio.channels.NotYetConnectedException();
        }
        if (!outputShutdown) {
            outputShutdown = true;
            shutdownSocket(SocketConstants.SHUT_WR, "shutdown(SHUT_WR)");
        }
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            shutdownInput0(promise);
        } else {
            eventLoop().execute(() -> shutdownInput0(promise));
        }
        return promise;
    }

    private void shutdownInput0(ChannelPromise promise) {
        try {
            if (!isOpen()) {
                throw new java.nio.channels.ClosedChannelException();
            }
            if (!active) {
                throw new java.nio.channels.NotYetConnectedException();
            }
            if (!inputShutdown) {
                inputShutdown = true;
                shutdownSocket(SocketConstants.SHUT_RD, "shutdown(SHUT_RD)");
            }
            promise.setSuccess();
        } catch (Throwable t) {
            promise.setFailure(t);
        }
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelFuture output = shutdownOutput();
        output.addListener(f -> shutdownInput(newPromise()).addListener(in -> {
            Throwable cause = f.cause() != null ? f.cause() : in.cause();
            if (cause == null) {
                promise.setSuccess();
            } else {
                promise.setFailure(cause);
            }
        }));
        return promise;
    }

    // ------------------------------------------------------------------------------------------ reading

    @Override
    protected void doBeginRead() {
        readPending = true;
        trace("read()");
        if (pendingInput != null) {
            scheduleDeliverPendingInput();
            return;
        }
        armRecv();
    }

    /** Delivers {@link #pendingInput} in a task of its own, once however often it is asked before it runs. */
    private void scheduleDeliverPendingInput() {
        if (!pendingInputTaskScheduled) {
            pendingInputTaskScheduled = true;
            eventLoop().execute(() -> ((StreamUnsafe) unsafe()).deliverPendingInput());
        }
    }

    private void armRecv() {
        RingwireIoRegistration r = registration;
        if (!active || inputShutdown || eofSeen || closingOffLoop || r == null || !r.isValid() || noSocketHere()) {
            return;
        }
        if (inFlight(READ_DIRECT | READ_MULTISHOT | READ_SINGLE)) {
            return; // its completion re-arms; one receive at a time, so the byte order holds
        }
        if (!config.isAutoRead() && !readPending) {
            return;
        }
        if (!reserveReadSqe(r)) {
            return; // nothing changed: prepareBeforeEnter() comes back here next iteration
        }
        if (readsFileDescriptors()) {
            armDescriptorRecv(r);
            return;
        }
        RingwireIoHandler h = r.handler();
        boolean direct = h.receiveBuffers().bufferRing() == null || config.isAutoRead() && bulk || ringDry;
        if (direct && armDirectRecv(r)) {
            if (ringDry) {
                ringDry = false;
                h.counters().dryRingFallbacks++;
            }
        } else if (direct && h.receiveBuffers().bufferRing() == null) {
            throw new IllegalStateException("bufferRing is off, and the channel's allocator gives direct buffers "
                + "without a single native address to receive into: " + config.getAllocator());
        } else if (config.isAutoRead() && h.config().multishotRecv()) {
            long userData = r.nextUserData(IORING_OP_RECV, MULTISHOT);
            nameSlotOrFd(r, r.sq().prepRecvMultishot(fd, ReceiveBuffers.GROUP, 0, userData));
            started(READ_MULTISHOT);
        } else {
            long userData = r.nextUserData(IORING_OP_RECV, SINGLE);
            nameSlotOrFd(r, r.sq().prepRecvBufferSelect(fd, ReceiveBuffers.GROUP, 0, userData));
            started(READ_SINGLE);
        }
    }

    /**
     * One single-shot RECV into an allocator buffer (bulk mode, a dry ring, or no ring).
     *
     * @return false if the allocator's buffer has no single native address (nothing armed: use the ring)
     */
    private boolean armDirectRecv(RingwireIoRegistration r) {
        RingwireIoHandler h = r.handler();
        RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
        BufferRing ring = h.receiveBuffers().bufferRing();
        int size = ring == null ? handle.guess() : Math.max(handle.guess(), 2 * ring.bufferSize());
        ByteBuf buf = config.getAllocator().directBuffer(size);
        long address = nativeAddress(buf, buf.writerIndex(), buf.writableBytes());
        if (address == 0) {
            buf.release();
            bulk = false;
            ringDry = false;
            return false;
        }
        long userData;
        try {
            userData = r.nextUserData(IORING_OP_RECV, DIRECT);
            nameSlotOrFd(r, r.sq().prepRecv(fd, address, buf.writableBytes(), 0, userData));
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        directBuf = buf;
        started(READ_DIRECT);
        h.counters().directRecvs++;
        return true;
    }

    @Override
    byte readOpcode() {
        Descriptors d = descriptors;
        return d != null && d.recv != null ? IORING_OP_RECVMSG : IORING_OP_RECV;
    }

    /**
     * @return whether reads take descriptors passed by the peer, not bytes (a Unix domain socket with
     *         {@code DomainSocketReadMode.FILE_DESCRIPTORS})
     */
    boolean readsFileDescriptors() {
        return false;
    }

    /**
     * The read mode changed: a receive of the other kind in flight is cancelled, so that the next one is of the new
     * kind (its completion re-arms). On the loop.
     */
    void readModeChanged() {
        RingwireIoRegistration r = registration;
        if (r != null && r.isValid()) {
            cancelReads(r);
        }
    }

    /**
     * One RECVMSG of the one-byte message that carries a descriptor, single-shot: the peer's descriptors come one per
     * completion, as Netty's native domain channels read them. The SQE is reserved.
     */
    private void armDescriptorRecv(RingwireIoRegistration r) {
        ByteBuf buf = DescriptorMessage.allocate(config.getAllocator());
        if (buf == null) {
            throw new IllegalStateException("the channel's allocator gives direct buffers without a single native "
                + "address, to receive a descriptor into: " + config.getAllocator());
        }
        long msghdr = DescriptorMessage.layOut(DescriptorMessage.msghdr(buf), -1);
        descriptors().recv = buf;
        // named by its fd, not a fixed-file slot: passing descriptors is rare, and takes no slot (but a direct
        // descriptor has nothing else)
        nameSlot(r, r.sq().prepRecvmsg(fd, msghdr, SocketConstants.MSG_CMSG_CLOEXEC,
            r.nextUserData(IORING_OP_RECVMSG, SINGLE)));
        started(READ_SINGLE);
    }

    /** @return bytes received and held for the next read() (autoRead off, or between loops); on the loop only */
    int pendingInputBytes() {
        return pendingInput == null ? 0 : pendingInput.readableBytes();
    }

    /**
     * SQEs a connection names its fd in before it takes a slot of the loop's fixed-file table: a slot costs two
     * io_uring_register calls (at the take and at close) and saves the kernel an fd look-up and a reference count per
     * SQE, so a short-lived connection (a request and a close) is better off without one.
     */
    static final int SQES_BEFORE_FIXED_FILE = 16;

    @Override
    void joined(RingwireIoRegistration r) {
        if (slotHome != null) {
            directJoined = true;
            r.handler().counters().directDescriptors++;
        } else if (fd >= 0 && fileSlot < 0) {
            fileSlot = -1 - SQES_BEFORE_FIXED_FILE;
        }
        readPaused(); // an accepted connection with autoRead off: no read() may ever come to see the peer close
    }

    @Override
    void readPaused() {
        ((StreamUnsafe) unsafe()).watchForPeerCloseIfPaused();
    }

    @Override
    void leaving(RingwireIoRegistration r) {
        if (directJoined) {
            directJoined = false;
            r.handler().counters().directDescriptors--;
        }
        if (slotHome != null) {
            return; // a direct descriptor stays in its table: moved by the next registration, emptied by the close
        }
        int slot = fileSlot;
        fileSlot = -1;
        if (slot < 0) {
            return;
        }
        RingwireIoHandler h = r.handler();
        if (eventLoop().inEventLoop()) {
            h.fileTable().releaseFileSlot(slot);
        } else {
            // a close from another thread: the table belongs to the loop's thread (SINGLE_ISSUER); the slot keeps
            // the socket open until then. If the loop has shut down, its ring took the table with it.
            try {
                eventLoop().execute(() -> h.fileTable().releaseFileSlot(slot));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                logger.debug("loop gone before the fixed-file slot of {} was emptied: its ring closed it", this);
            }
        }
    }

    /** @return this socket's fixed-file slot, or a negative number without one; on the loop only */
    int fileSlot() {
        return fileSlot;
    }

    /**
     * Decides whether {@code sqe}, prepared with the fd, names this channel's fixed-file slot instead: it does once the
     * channel has one, taking one at its {@link #SQES_BEFORE_FIXED_FILE}th SQE.
     */
    void nameSlotOrFd(RingwireIoRegistration r, long sqe) {
        int slot = fileSlot;
        if (slot < -1 && ++slot == -1) {
            slot = r.handler().fileTable().takeFileSlot(fd); // -1 when refused: given up
        }
        fileSlot = slot;
        if (slot >= 0) {
            r.sq().setFixedFileSlot(sqe, slot);
        }
    }

    /**
     * @return whether there is no socket to name in an SQE now: the channel is closed, or its direct descriptor is
     *         still on its way to this loop's table (a task run meanwhile must not arm anything)
     */
    private boolean noSocketHere() {
        return fd < 0 || fd == DIRECT_FD && slotHome == null;
    }

    /**
     * Names this direct descriptor's slot in {@code sqe}, which was prepared with {@link #fd}: for the operations that
     * a connection with an fd names by its fd (a POLL_ADD, a connect, passing descriptors, ...).
     */
    private void nameSlot(RingwireIoRegistration r, long sqe) {
        if (fd == DIRECT_FD) {
            r.sq().setFixedFileSlot(sqe, fileSlot);
        }
    }

    @Override
    void reregistered() {
        if (readPending && !config.isAutoRead()) {
            armRecv();
        }
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        if (in != null && !in.isEmpty()) {
            doWrite(in); // flushed bytes a cancelled write left behind
        }
    }

    /**
     * A connection keeps its multishot RECV armed when autoRead goes off, and cancels it only if bytes arrive while
     * paused (they wait in {@link #pendingInput}, at most what one batch of completions brought): a handler that
     * turns autoRead off and on again for every message, as reactive back-pressure does, then costs no cancel and
     * no re-arm per message.
     */
    @Override
    boolean cancelReadAtOnceWhenPaused() {
        return false;
    }

    @Override
    protected void doClose() throws Exception {
        try {
            super.doClose();
        } finally {
            if (!inFlight(WRITE)) {
                releaseFileChunk(); // (one the kernel still reads is released by the write's completion)
            }
            closeSendfileFd();
            Descriptors d = descriptors;
            if (d != null && d.fetched >= 0) {
                Libc.close(d.fetched); // installed by another loop for a passing that will not happen now
                d.fetched = -1;
            }
            if (pendingInput != null) {
                pendingInput.release();
                pendingInput = null;
            }
            releaseHeldAfterInlineWrite();
        }
    }

    /**
     * Holds the last frame an inline write sent until the next receive has gone up the pipeline. A frame decoder's
     * frames are slices of its cumulation, which it may append the next bytes to in place only while no slice of it is
     * held, and it discards the bytes it has read only then too, before channelReadComplete's flush; a cumulation that
     * still holds a partial frame when the echo's frames are all released before the next receive (as an inline write
     * releases them) grows with the whole stream, copied at each growth (single-stream: 240-330 MiB of direct memory,
     * 4-33 µs per message). With one slice held, the decoder copies the partial frame into a new cumulation instead,
     * as it does when the frames are still in flight in a SEND.
     */
    private void holdAfterInlineWrite(ByteBuf written) {
        ByteBuf before = heldAfterInlineWrite;
        heldAfterInlineWrite = written.retain();
        if (before != null) {
            before.release();
        }
    }

    private void releaseHeldAfterInlineWrite() {
        ByteBuf held = heldAfterInlineWrite;
        if (held != null) {
            heldAfterInlineWrite = null;
            held.release();
        }
    }

    // ------------------------------------------------------------------------------------------ writing

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf buf) {
            return toDirect(buf, alloc());
        }
        if (msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
            + " (Ringwire's stream channels write ByteBuf and FileRegion)");
    }

    /** Bytes of a FileRegion read into one buffer at a time, and sent from there. */
    static final int FILE_CHUNK = 64 * 1024;
    /** Bytes of a FileRegion made from a FileChannel mapped at a time. */
    static final long FILE_MAP_WINDOW = 4L * 1024 * 1024;

    /**
     * A sink for {@link FileRegion#transferTo}: takes bytes into {@code chunk} up to its capacity, then takes no
     * more (which ends the transfer).
     */
    private static final class ChunkSink implements java.nio.channels.WritableByteChannel {
        private final ByteBuf chunk;

        ChunkSink(ByteBuf chunk) {
            this.chunk = chunk;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), chunk.writableBytes());
            int limit = src.limit();
            src.limit(src.position() + n);
            chunk.writeBytes(src);
            src.limit(limit);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        if (!inFlight(WRITE) && registration != null) {
            if (inReadComplete) {
                // the flush of channelReadComplete: gather now, while the buffers just written are in the CPU's
                // cache (a whole iteration later they are not); the SEND still goes with the loop's next enter
                ((StreamUnsafe) unsafe()).prepareBeforeEnter();
            } else {
                registration.prepareBeforeEnter(); // gather once, just before the loop's enter
            }
        }
    }

    /** The pipeline is in channelReadComplete, fired by this channel's completions. */
    private boolean inReadComplete;

    // ------------------------------------------------------------------------------------------ the handle

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new StreamUnsafe();
    }

    private final class StreamUnsafe extends RingwireUnsafe {
        /*
         * A receive from the shared ring is entered through a method handle in a field that is not final, so C2
         * cannot fold it into a constant and compiles the receive on its own. Called directly, it was inlined into
         * the completion dispatch with the pipeline behind it: on the 500-connection echo one compilation of about
         * 14,000 nodes that reached C2's inlining cutoff, needed 31 MB of compiler arena (which the C library then
         * kept as resident memory) and was made three times (the loop's dispatch, its lambda, complete). Apart, the
         * largest is 14-22 MB and the echo server's resident set about 10 MiB smaller at the same CPU per message.
         * Direct receives (bulk streams) and write completions are still called directly: there the frame decoder's
         * compilations are the largest either way, and the measurements did not show a gain.
         */
        private static MethodHandle recvCompleteEntry = recvCompleteHandle();

        private static MethodHandle recvCompleteHandle() {
            try {
                return MethodHandles.lookup().findVirtual(StreamUnsafe.class, "recvComplete",
                    MethodType.methodType(void.class, int.class, int.class, int.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private void recvCompleteApart(int res, int flags, int data) {
            try {
                recvCompleteEntry.invokeExact(this, res, flags, data);
            } catch (Throwable t) {
                PlatformDependent.throwException(t); // what recvComplete threw, unchanged
            }
        }

        private RecvByteBufAllocator.ExtendedHandle allocHandle;
        private int messagesThisLoop;
        /** Bytes handed up the pipeline in this batch of completions: a bulk read loop stops at READ_LOOP_BYTES. */
        private long bytesThisLoop;

        private RecvByteBufAllocator.ExtendedHandle allocHandle() {
            if (allocHandle == null) {
                allocHandle = (RecvByteBufAllocator.ExtendedHandle) recvBufAllocHandle();
            }
            return allocHandle;
        }

        @Override
        public void connect(SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            // the promise stays cancellable, as Netty's epoll and io_uring keep it: a connect in flight is an SQE, and
            // cancelling the promise closes the channel (the listener below), which ends the SQE
            if (promise.isDone() || !ensureOpen(promise)) {
                return;
            }
            try {
                if (connecting != null) {
                    throw new ConnectionPendingException();
                }
                if (active) {
                    throw new AlreadyConnectedException();
                }
                if (local != null) {
                    doBind(local);
                }
                checkResolvable(remote);
                RingwireIoRegistration r = registration;
                RingwireIoHandler h = r.handler();
                if (!r.reserveSqe()) {
                    throw new IOException("cannot connect now: the io_uring submission queue is full and the kernel "
                        + "took nothing (sqRefusals=" + h.counters().sqRefusals() + ")");
                }
                long sa = h.scratch().take(SockAddr.STORAGE_SIZE);
                MemorySegment seg = h.scratch().segment();
                int len = writeRemoteAddress(remote, seg.asSlice(sa - seg.address(), SockAddr.STORAGE_SIZE));
                nameSlot(r, r.sq().prepConnect(fd, sa, len, r.nextUserData(IORING_OP_CONNECT, 0)));
                started(CONNECT);
                h.submitNow(); // the SYN leaves now, as connect(2)'s does, whatever the caller does next on the loop
                Connecting attempt = new Connecting(promise, remote);
                connecting = attempt;
                int timeoutMillis = config.getConnectTimeoutMillis();
                if (timeoutMillis > 0) {
                    attempt.timeout = eventLoop().schedule(() -> {
                        ChannelPromise p = connecting == attempt ? attempt.promise : null;
                        if (p != null && !p.isDone() && p.tryFailure(new ConnectTimeoutException(
                            "connection timed out after " + timeoutMillis + " ms: " + remote))) {
                            close(voidPromise());
                        }
                    }, timeoutMillis, TimeUnit.MILLISECONDS);
                }
                promise.addListener(f -> {
                    if (f.isCancelled()) {
                        cancelConnectTimeout();
                        connecting = null;
                        close(voidPromise());
                    }
                });
            } catch (Throwable t) {
                promise.tryFailure(annotateConnectException(t, remote));
                closeIfClosed();
            }
        }

        private void cancelConnectTimeout() {
            if (connecting != null && connecting.timeout != null) {
                connecting.timeout.cancel(false);
                connecting.timeout = null;
            }
        }

        @Override
        public void complete(byte opcode, int res, int flags, int data) {
            switch (opcode) {
                case IORING_OP_RECV -> {
                    if (data == DIRECT) {
                        directRecvComplete(res, flags);
                    } else {
                        recvCompleteApart(res, flags, data);
                    }
                }
                case IORING_OP_SEND -> writeComplete(res);
                case IORING_OP_SENDMSG -> {
                    if (data == DESCRIPTOR) {
                        descriptorSendComplete(res);
                    } else {
                        writeComplete(res);
                    }
                }
                case IORING_OP_RECVMSG -> descriptorRecvComplete(res, flags);
                case IORING_OP_SEND_ZC, IORING_OP_SENDMSG_ZC -> {
                    if (zeroCopy.complete(res, flags, data)) {
                        writeComplete(res);
                    }
                }
                case IORING_OP_CONNECT -> connectComplete(res);
                case IORING_OP_POLL_ADD -> {
                    if (data == WRITE_POLL) {
                        writePollComplete(res);
                    } else {
                        rdhupComplete(res);
                    }
                }
                default -> { } // our own ASYNC_CANCELs
            }
        }

        // ---------------------------------------------------------------- connect

        private void connectComplete(int res) {
            ended(CONNECT);
            cancelConnectTimeout();
            Connecting attempt = connecting;
            connecting = null;
            ChannelPromise promise = attempt == null ? null : attempt.promise;
            if (promise == null || promise.isDone()) {
                return; // timed out or cancelled: already failed and closing
            }
            if (res == 0) {
                boolean wasActive = active;
                active = true;
                resetLocalAddress();
                cacheRemoteAddress(attempt.remote);
                boolean promiseSet = promise.trySuccess();
                if (!wasActive) {
                    pipeline().fireChannelActive();
                }
                if (!promiseSet) {
                    close(voidPromise());
                } else {
                    watchForPeerCloseIfPaused(); // autoRead off and no read(): the peer's close is still seen
                }
                return;
            }
            if (res == -Errno.ECANCELED && !isOpen()) {
                promise.tryFailure(new java.nio.channels.ClosedChannelException());
                return;
            }
            IOException missing = noSocketAt(res, attempt.remote);
            IOException e = missing != null ? missing : new ConnectException("connect failed: " + Errno.name(res)
                + " (" + Errno.description(res) + ")");
            promise.tryFailure(annotateConnectException(e, attempt.remote));
            closeIfClosed();
            close(voidPromise());
        }

        // ---------------------------------------------------------------- recv

        /**
         * Reading is paused but the peer may still close: watch for its FIN, as epoll's EPOLLRDHUP does, so
         * half-closure is seen without a read() (one POLL_ADD per paused connection, none while reading).
         */
        private void watchForPeerCloseIfPaused() {
            RingwireIoRegistration r = registration;
            if (inFlight(PEER_CLOSE_WATCH | READ_MULTISHOT | READ_SINGLE | READ_DIRECT)
                || config.isAutoRead() || readPending || eofSeen || closingOffLoop
                || inputShutdown || !active || noSocketHere() || r == null || !r.isValid()) {
                return;
            }
            if (!reserveReadSqe(r)) {
                return;
            }
            nameSlot(r, r.sq().prepPollAdd(fd, SocketConstants.POLLRDHUP, false, r.nextUserData(IORING_OP_POLL_ADD, 0)));
            started(PEER_CLOSE_WATCH);
        }

        private void rdhupComplete(int res) {
            ended(PEER_CLOSE_WATCH);
            if (res > 0 && isOpen() && !eofSeen) {
                // read what is left and the EOF, as epoll does on EPOLLRDHUP: whatever autoRead and the budget say
                drainingToEof = true;
                doBeginRead();
            }
        }

        private void recvComplete(int res, int flags, int data) {
            boolean ended = readCompleted(data, flags);
            moreWaiting = (flags & IORING_CQE_F_SOCK_NONEMPTY) != 0;
            RingwireIoRegistration r = registration;
            RingwireIoHandler h = r.handler();
            if (res > 0) {
                BufferRing buffers = h.receiveBuffers().bufferRing();
                int bid = IoUringCqe.bufferId(flags);
                RingwireCounters c = h.counters();
                c.recvs++;
                c.recvBytes += res;
                try {
                    deliver(h.receiveBuffers().view(bid, buffers.dataOffset(bid), res), buffers.address(bid));
                } finally {
                    buffers.release(bid, res, flags); // the bytes now live in the pipeline's buffers
                }
                if (config.isAutoRead()) {
                    watchForBulk(r, res, flags, buffers.bufferSize(), data == MULTISHOT);
                }
            } else if (res == 0) {
                eofSeen = true;
            } else if (res == -Errno.ENOBUFS) {
                // the shared ring ran dry: it grows if it can, and the receive is armed on it again; at its largest,
                // this connection's next receive goes into a buffer of its own, so it is not left waiting for the
                // ring to refill (a buffer it holds until bytes come: a ring that grows first keeps idle connections
                // from each pinning one after a burst)
                ringDry = !h.receiveBuffers().ranDry();
            } else if (res != -Errno.ECANCELED) {
                readError = new NativeIoException("recv", res);
            }
            if (ended) {
                recvNeedsRearm = true;
            }
            readDone(r, res > 0 && !moreWaiting);
        }

        /**
         * A multishot receive that filled its ring buffer while more waited in the socket, twice in a row: this is a
         * bulk stream, and the multishot RECV is cancelled so that direct receives take over when it has ended.
         */
        private void watchForBulk(RingwireIoRegistration r, int res, int flags, int bufferSize, boolean multishot) {
            if (bulk || !r.handler().config().directReceive()) {
                return;
            }
            if (res < bufferSize || (flags & IORING_CQE_F_SOCK_NONEMPTY) == 0) {
                fullRecvs = 0;
                return;
            }
            if (++fullRecvs >= 2) {
                bulk = true;
                fullRecvs = 0;
                smallRecvs = 0;
                if (multishot && inFlight(READ_MULTISHOT)) {
                    cancel(r, IORING_OP_RECV, MULTISHOT);
                } // a single-shot one has ended: the next arm is direct
            }
        }

        /** A direct receive completed: its bytes are already in {@link #directBuf}, which goes up the pipeline. */
        private void directRecvComplete(int res, int flags) {
            readCompleted(DIRECT, flags);
            moreWaiting = (flags & IORING_CQE_F_SOCK_NONEMPTY) != 0;
            ByteBuf buf = directBuf;
            directBuf = null;
            RingwireIoRegistration r = registration;
            RingwireIoHandler h = r.handler();
            boolean readLoopGoesOn = false; // this receive does not end the read loop: the next one is armed at once
            if (res <= 0 || !isOpen()) {
                buf.release();
                if (res == 0) {
                    eofSeen = true;
                } else if (res < 0 && res != -Errno.ECANCELED) {
                    readError = new NativeIoException("recv", res);
                }
            } else {
                RingwireCounters c = h.counters();
                c.recvs++;
                c.recvBytes += res;
                buf.writerIndex(buf.writerIndex() + res);
                if (!config.isAutoRead() || pendingInput != null || !r.isValid()) {
                    // autoRead went off, or the channel left its loop, while this read was in flight: the bytes go
                    // through deliver(), which keeps them for a read() or the next loop
                    try {
                        deliver(buf.nioBuffer(buf.readerIndex(), res),
                            buf.hasMemoryAddress() ? buf.memoryAddress() + buf.readerIndex() : 0);
                    } finally {
                        buf.release();
                    }
                } else {
                    RecvByteBufAllocator.ExtendedHandle handle = batchHandle();
                    handle.attemptedBytesRead(buf.writableBytes() + res);
                    countRead(handle, res);
                    pipeline().fireChannelRead(buf);
                    // like epoll's read loop: with more waiting, few busy connections on the loop and the
                    // allocator's budget left (16 reads by default), read on before channelReadComplete, so its
                    // flush sends several receives in one SENDMSG; but no more than READ_LOOP_BYTES
                    readLoopGoesOn = moreWaiting && isOpen() && h.fewReceivesPerBatch() && handle.continueReading()
                        && bytesThisLoop < READ_LOOP_BYTES;
                }
                // a stream that slows down goes back to the shared ring, so an idle connection pins no buffer
                BufferRing ring = h.receiveBuffers().bufferRing();
                boolean small = ring != null && res < ring.bufferSize() && !moreWaiting;
                smallRecvs = small ? smallRecvs + 1 : 0;
                if (smallRecvs >= 4) {
                    bulk = false;
                    smallRecvs = 0;
                }
            }
            recvNeedsRearm = true;
            if (readLoopGoesOn) {
                armRecv();
                if (inFlight(READ_DIRECT) || armRetry) {
                    recvNeedsRearm = false;
                    return; // channelReadComplete when the loop ends
                }
            }
            readDone(r, true);
        }

        /**
         * A receive's bytes went up the pipeline. When no more of this connection's bytes can be in this batch of
         * completions ({@code last}: a direct receive, or one that left the socket empty), channelReadComplete
         * follows at once, and with it the echo's flush and gather, while the received and written buffers are in
         * the CPU's cache; after the whole batch (the lab's rpc-backend: 32 connections × 64 KiB) they are not.
         * Otherwise it follows the batch, once for all of this connection's receives in it.
         */
        private void readDone(RingwireIoRegistration r, boolean last) {
            releaseHeldAfterInlineWrite(); // this receive's bytes have met the frames the last inline write sent
            if (last && !inFlight(WRITE) && r.isValid()) {
                afterCompletions();
            } else {
                r.notifyAfterCompletions();
            }
        }

        /**
         * Hands {@code src}'s bytes to the pipeline in buffers from the channel's allocator. With autoRead off, each
         * message satisfies the pending read() and the allocator's budget ends the read loop; what is left waits in
         * {@link #pendingInput} for the next read().
         */
        private void deliver(ByteBuffer src, long srcAddress) {
            ByteBufAllocator alloc = config.getAllocator();
            if (!registration.isValid()) {
                // a receive that completed after deregistration: its bytes wait for the loop the channel joins next
                // (a closed channel drops them)
                stash(src, alloc);
                return;
            }
            if (pendingInput != null) {
                stash(src, alloc); // older bytes wait for the next read(): keep the order
                return;
            }
            if (!config.isAutoRead() && !drainingToEof && !readPending && (!readInBatch || messagesThisLoop == 0)) {
                // paused, and no read() asked for these bytes: they wait for one without touching the allocator's
                // handle, so a batch that delivers nothing is no read at all. Counted as a read of 0 bytes, it
                // shrank the handle's guess, and the next read() handed the kept bytes up in pieces of the smaller
                // guess: a read-shaping handler then paused for each piece's share of its budget instead of for
                // the whole, as Netty's epoll and NIO read them
                stash(src, alloc);
                return;
            }
            RecvByteBufAllocator.ExtendedHandle handle = batchHandle();
            ChannelPipeline p = pipeline();
            while (src.hasRemaining()) {
                if (!config.isAutoRead() && !drainingToEof
                    && (messagesThisLoop == 0 ? !readPending : !handle.continueReading())) {
                    stash(src, alloc);
                    return;
                }
                // the bytes are in hand, so their count is known: a buffer of that size (the handle's guess still
                // caps each one) holds a 128-byte message's 128 bytes of pooled memory while its echo is in flight,
                // not the guess's 2 KiB (rpc-frontend, 2,000 connections: direct peak 1.5-3.5 -> 0.1-0.75 MiB).
                // The guess is what epoll would have tried to read: when the bytes fill it, lastBytesRead grows it
                // at once, as epoll's read loop does, instead of at the batch's end (a stream's receives in one
                // batch went up in 2 KiB pieces)
                int guess = handle.guess();
                handle.attemptedBytesRead(guess);
                ByteBuf buf = alloc.ioBuffer(Math.min(src.remaining(), guess));
                int n = Math.min(src.remaining(), buf.writableBytes());
                copy(src, srcAddress, buf, n);
                countRead(handle, n);
                if (!config.isAutoRead() && !drainingToEof) {
                    readPending = false; // this message answers the read(); the handler may ask for another
                }
                p.fireChannelRead(buf);
            }
        }

        /** @return the allocator's handle for this batch of completions, reset when the batch starts */
        private RecvByteBufAllocator.ExtendedHandle batchHandle() {
            RecvByteBufAllocator.ExtendedHandle handle = allocHandle();
            if (!readInBatch) {
                readInBatch = true;
                messagesThisLoop = 0;
                bytesThisLoop = 0;
                handle.reset(config);
            }
            return handle;
        }

        /** Counts one message of {@code n} bytes going up the pipeline in this batch. */
        private void countRead(RecvByteBufAllocator.ExtendedHandle handle, int n) {
            handle.lastBytesRead(n);
            handle.incMessagesRead(1);
            messagesThisLoop++;
            bytesThisLoop += n;
        }

        private void stash(ByteBuffer src, ByteBufAllocator alloc) {
            if (!isOpen()) {
                // the channel closed while these bytes were on their way up (its handler closed it in channelRead of
                // an earlier piece of the same receive, or an earlier completion of this batch did): doClose has
                // released what was kept, and nothing would release a buffer kept now; nobody can read them
                if (OpTrace.ON) {
                    trace("dropped after the close: " + src.remaining() + " bytes");
                }
                src.position(src.limit());
                return;
            }
            if (OpTrace.ON) {
                trace("kept for a read(): " + src.remaining() + " bytes");
            }
            if (pendingInput == null) {
                pendingInput = alloc.directBuffer(src.remaining());
            }
            pendingInput.writeBytes(src);
        }

        void deliverPendingInput() {
            pendingInputTaskScheduled = false;
            ByteBuf stashed = pendingInput;
            if (stashed == null || !isOpen()) {
                return;
            }
            pendingInput = null;
            try {
                deliver(stashed.nioBuffer(), 0);
            } finally {
                stashed.release();
            }
            afterCompletions();
            if (pendingInput == null && readPending) {
                armRecv();
            }
        }

        @Override
        public void afterCompletions() {
            ChannelPipeline p = pipeline();
            if (moreWaiting && recvNeedsRearm && config.isAutoRead() && readError == null && !eofSeen) {
                // the last receive stopped mid-stream (the socket had more): the next one goes in the SQ before the
                // SEND that channelReadComplete's flush prepares, so the kernel runs it first and its bytes arrive
                // while the frames just written are still held. A frame decoder then copies its partial frame into
                // a new cumulation instead of appending in place to one it can never discard (its slices are always
                // in flight when it tries): that grew without bound, copied at each growth (single-stream:
                // 1M -> 36k msgs/s). When the socket was drained the read most likely ended on a message boundary,
                // the SEND goes first, and the next read finds the echo's buffers already released.
                recvNeedsRearm = false;
                armRecv();
            }
            if (readInBatch) {
                readInBatch = false;
                allocHandle().readComplete();
                inReadComplete = true;
                try {
                    p.fireChannelReadComplete();
                } finally {
                    inReadComplete = false;
                }
            }
            if (readError != null) {
                IOException e = readError;
                readError = null;
                p.fireExceptionCaught(e);
                close(voidPromise());
                return;
            }
            if (pendingInput != null && readPending && registration.isValid()) {
                scheduleDeliverPendingInput();
            }
            if (eofSeen) {
                handleEof();
                return;
            }
            if (recvNeedsRearm) {
                recvNeedsRearm = false;
                if (config.isAutoRead() || readPending) {
                    armRecv();
                }
            }
            if (!config.isAutoRead() && !readPending && inFlight(READ_MULTISHOT) && pendingInput != null) {
                cancel(registration, IORING_OP_RECV, MULTISHOT); // bytes came while paused: stop taking more
            }
            watchForPeerCloseIfPaused();
        }

        private void handleEof() {
            trace("end of input");
            if (!isOpen()) {
                return;
            }
            if (pendingInput != null) {
                // deliver what was received first: deliverPendingInput() comes back here when it is done. The FIN
                // came while bytes waited for a read() (a receive armed before reading paused took both): they go
                // up whatever autoRead says, as on EPOLLRDHUP, since a paused handler may wait for the close to read
                if (!drainingToEof) {
                    drainingToEof = true;
                    if (registration.isValid()) {
                        scheduleDeliverPendingInput();
                    }
                }
                return;
            }
            if (config.isAllowHalfClosure()) {
                if (!inputShutdown) {
                    inputShutdown = true;
                    shutdownAfterEof();
                    pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
                    pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
                }
            } else {
                close(voidPromise());
            }
        }

        // ---------------------------------------------------------------- write

        /**
         * Called before the outbound buffer is failed (close, shutdownOutput). Flushed bytes not yet handed to the
         * kernel go out now with one synchronous, non-blocking sendmsg, as epoll's flush would already have sent
         * them; buffers an in-flight write points at are retained until its completion, so the kernel never reads
         * memory that was freed.
         */
        @Override
        protected void close(ChannelPromise promise, Throwable cause, java.nio.channels.ClosedChannelException
            closeCause) {
            if (isOpen() && active && !outputShutdown) {
                writeNowOrKeepForKernel(); // the outbound buffer is failed next: what was flushed goes out first
            }
            super.close(promise, cause, closeCause);
        }

        void writeNowOrKeepForKernel() {
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null || in.isEmpty() || registration == null || !eventLoop().inEventLoop()) {
                return;
            }
            if (inlineUnsettled > 0) {
                settleInlineWrite(in); // closed by a listener of an inline write's buffers: the rest was sent too
                if (in.isEmpty()) {
                    return;
                }
            }
            if (inFlight(WRITE)) {
                if (!settleWritePosted(in)) {
                    holdForKernel(in, in.size()); // (a FileRegion's piece in flight is the channel's own buffer)
                }
                return;
            }
            if (gather(in) == 0) {
                return;
            }
            int res = sendNow(registration.handler(), registration.handler().writeGather().msghdrSegment());
            if (res > 0) {
                removeWritten(in, res);
            }
        }

        /**
         * A close (or shutdownOutput) while this channel's send is in flight, when the kernel has already posted the
         * send's CQE later in the batch being handled (the close came from an earlier completion of it, e.g. a
         * handler closing on what the receive just before brought): its bytes are the peer's, so its buffers leave the
         * outbound buffer as written now, their promises succeeding as they would have on epoll, where the flush
         * wrote them, instead of failing with the rest. The kernel is done with them (a zero-copy send's are held by
         * its own slot until the notification).
         *
         * @return whether the send's outcome was known and settled: nothing is left in flight for the kernel to read
         */
        private boolean settleWritePosted(ChannelOutboundBuffer in) {
            if (writeSettledAhead) {
                return true; // a close from a listener of a promise it completed
            }
            if (files != null && files.chunk != null || !writeInFlightSendsBuffers()) {
                return false;
            }
            int res = writeResultPosted();
            if (res < 0) {
                return false; // not posted yet (or an error, which its own turn reports)
            }
            writeSettledAhead = true;
            removeWritten(in, res);
            return true;
        }

        /**
         * Removes {@code written} bytes' worth of flushed buffers, as {@link ChannelOutboundBuffer#removeBytes} does,
         * but stops where the buffer runs out of them: a listener of a removed buffer's promise may close the channel,
         * which fails (and removes) the flushed buffers left, whose bytes this write may already have sent.
         */
        private void removeWritten(ChannelOutboundBuffer in, long written) {
            while (written > 0 && in.current() instanceof ByteBuf buf) {
                int readable = buf.readableBytes();
                if (readable <= written) {
                    written -= readable;
                    in.progress(readable);
                    in.remove();
                } else {
                    buf.readerIndex(buf.readerIndex() + (int) written);
                    in.progress(written);
                    written = 0;
                }
            }
            while (in.current() instanceof ByteBuf b && !b.isReadable()) {
                in.remove(); // empty buffers at the head are written too, as removeBytes removes them
            }
        }

        /**
         * Gathers the flushed buffers into the loop's msghdr and iovecs ({@link WriteGather}).
         *
         * @return the iovecs; 0 if none (only empty buffers were flushed: dropped; or a message failed: handled)
         */
        private int gather(ChannelOutboundBuffer in) {
            int n;
            try {
                n = registration.handler().writeGather().gather(in);
            } catch (Exception e) {
                handleWriteError(e);
                return 0;
            }
            if (n == 0) {
                // only empty buffers were flushed: drop them, nothing goes to the kernel
                while (in.current() instanceof ByteBuf b && !b.isReadable()) {
                    in.remove();
                }
                if (!in.isEmpty() && !(in.current() instanceof ByteBuf)) {
                    registration.prepareBeforeEnter(); // a FileRegion or a descriptor came after them: its turn
                }
            }
            return n;
        }

        /**
         * Writes the outbound buffer's first message when it is not bytes: a FileRegion, or a descriptor to pass (the
         * outbound filter lets nothing else in). Kept out of {@link #prepareBeforeEnter}, which C2 inlines into the
         * flush only while its bytecode stays under 325 bytes ({@code FreqInlineSize}).
         */
        private void writeNotBytes(RingwireIoRegistration r, ChannelOutboundBuffer in, Object current) {
            if (current instanceof FileDescriptor passed) {
                sendDescriptor(r, in, passed);
            } else {
                writeFileRegion(r, in, (FileRegion) current);
            }
        }

        @Override
        public void prepareBeforeEnter() {
            if (armRetry) {
                armRetry = false;
                armRecv();
                watchForPeerCloseIfPaused();
            }
            ChannelOutboundBuffer in = outboundBuffer();
            if (inFlight(WRITE) || in == null || in.isEmpty() || noSocketHere() || !active || closingOffLoop) {
                return;
            }
            RingwireIoRegistration r = registration;
            if (inlineUnsettled > 0) {
                return; // a listener flushed while an inline write's buffers leave: that write goes on with the rest
            }
            if (!r.reserveSqe()) {
                r.retryNextIteration(); // the flushed bytes wait in the outbound buffer
                return;
            }
            Object current = in.current();
            if (!(current instanceof ByteBuf)) {
                writeNotBytes(r, in, current);
                return;
            }
            int iovecs = gather(in);
            if (iovecs == 0) {
                return;
            }
            SubmissionQueue q = r.sq();
            WriteGather g = r.handler().writeGather();
            if (bulk && inReadComplete && !zeroCopyFor(g.bytes(), r.handler())) {
                if (writeInline(r.handler(), in, iovecs)) {
                    return;
                }
                iovecs = gather(in); // the socket took part or none of it: the rest goes with the loop's enter
                if (iovecs == 0) {
                    return;
                }
            }
            if (zeroCopyFor(g.bytes(), r.handler())) {
                zeroCopySends().send(r, in, g, iovecs);
            } else if (iovecs == 1) {
                nameSlotOrFd(r, q.prepSend(fd, g.firstAddress(), g.firstLength(), SocketConstants.MSG_NOSIGNAL,
                    r.nextUserData(IORING_OP_SEND, 0)));
                startedWrite(IORING_OP_SEND);
            } else {
                nameSlotOrFd(r, q.prepSendmsg(fd, g.msghdr(), SocketConstants.MSG_NOSIGNAL,
                    r.nextUserData(IORING_OP_SENDMSG, 0)));
                startedWrite(IORING_OP_SENDMSG);
            }
            RingwireCounters c = r.handler().counters();
            c.writes++;
            c.writeIovecs += iovecs;
        }

        /**
         * A bulk stream's flush from channelReadComplete, written at once with one non-blocking sendmsg(2) (a
         * synchronous call on a direct descriptor) instead of a SEND in the loop's next enter. Its buffers then leave
         * the outbound buffer while they are still in the CPU's cache: a batch of completions that brings 64 KiB for
         * each of many connections (the lab's rpc-backend) otherwise removes each connection's hundreds of frames an
         * iteration later, after the other connections' receives have pushed them out of it. One system call per large
         * receive, where the SEND would have cost the kernel the same work in the enter.
         *
         * @return whether nothing is left to send (all written, or the channel closed meanwhile)
         */
        private boolean writeInline(RingwireIoHandler h, ChannelOutboundBuffer in, int iovecs) {
            int res = sendNow(h, h.writeGather().msghdrSegment());
            if (res <= 0) {
                return false; // EAGAIN: a SEND waits for room; an error: the SEND reports it as any write's would
            }
            RingwireCounters c = h.counters();
            c.writes++;
            c.inlineWrites++;
            c.writeIovecs += iovecs;
            c.writeBytes += res;
            inlineUnsettled = res;
            settleInlineWrite(in);
            return in.isEmpty() || !isOpen() || !active || outputShutdown;
        }

        /**
         * Removes the buffers an inline write sent, as {@link #removeWritten} does, keeping the bytes still to remove
         * in {@link #inlineUnsettled}: a promise's listener that flushes in here gathers nothing until they are gone
         * (it would send them twice), and one that closes the channel settles the rest as written before the close
         * fails what was not (the same call, which this loop then finds done).
         */
        private void settleInlineWrite(ChannelOutboundBuffer in) {
            while (inlineUnsettled > 0 && in.current() instanceof ByteBuf buf) {
                int readable = buf.readableBytes();
                if (readable <= inlineUnsettled) {
                    inlineUnsettled -= readable;
                    if (inlineUnsettled == 0) {
                        holdAfterInlineWrite(buf); // the last one sent (a partly sent one stays in the buffer)
                    }
                    in.progress(readable);
                    in.remove();
                } else {
                    buf.readerIndex(buf.readerIndex() + (int) inlineUnsettled);
                    in.progress(inlineUnsettled);
                    inlineUnsettled = 0;
                }
            }
            inlineUnsettled = 0;
            while (in.current() instanceof ByteBuf b && !b.isReadable()) {
                in.remove();
            }
        }

        private boolean zeroCopyFor(long bytes, RingwireIoHandler h) {
            int threshold = sendZcThreshold();
            ZeroCopySends z = zeroCopy;
            return threshold > 0 && bytes >= threshold && h.zeroCopyAvailable()
                && (z == null || !z.off && z.pending < ZeroCopySends.SLOTS);
        }

        /**
         * Sends the next piece of a FileRegion: up to {@link #FILE_CHUNK} bytes copied from it into a buffer (through
         * its own {@code transferTo}, so every kind of FileRegion works), then one SEND from there.
         */
        private void writeFileRegion(RingwireIoRegistration r, ChannelOutboundBuffer in, FileRegion region) {
            ByteBuf chunk = files == null ? null : files.chunk;
            // sendfile(2) takes the socket's fd: a direct descriptor sends the file from a mapping instead
            if (chunk == null && fd != DIRECT_FD && region instanceof DefaultFileRegion d && sendFile(r, in, d)) {
                return;
            }
            if (chunk == null) {
                long left = region.count() - region.transferred();
                if (left <= 0) {
                    in.remove();
                    if (!in.isEmpty()) {
                        doWrite(in);
                    }
                    return;
                }
                boolean mapped;
                try {
                    // a DefaultFileRegion sendfile could not take (made from a FileChannel): mapped, sent from
                    // the page cache; any other region copied through its own transferTo
                    chunk = region instanceof DefaultFileRegion d ? FileRegionFiles.map(d, FILE_MAP_WINDOW,
                        eventLoop()) : null;
                    mapped = chunk != null;
                    if (!mapped) {
                        chunk = config.getAllocator().directBuffer((int) Math.min(left, FILE_CHUNK));
                        region.transferTo(new ChunkSink(chunk), region.transferred());
                    }
                } catch (Throwable t) {
                    if (chunk != null) {
                        chunk.release();
                    }
                    in.remove(t); // e.g. the file is shorter than the region's count
                    if (!in.isEmpty()) {
                        doWrite(in);
                    }
                    return;
                }
                if (!chunk.isReadable()) {
                    chunk.release();
                    r.retryNextIteration(); // the region gave nothing now: ask again, without spinning
                    return;
                }
                files().chunk = chunk;
                if (mapped) {
                    r.handler().counters().fileRegionMappedBytes += chunk.readableBytes();
                } else {
                    r.handler().counters().fileRegionCopiedBytes += chunk.readableBytes();
                }
            }
            nameSlotOrFd(r, r.sq().prepSend(fd, nativeAddress(chunk, chunk.readerIndex(), chunk.readableBytes()),
                chunk.readableBytes(), SocketConstants.MSG_NOSIGNAL, r.nextUserData(IORING_OP_SEND, 0)));
            startedWrite(IORING_OP_SEND);
            RingwireCounters c = r.handler().counters();
            c.writes++;
            c.writeIovecs++;
        }

        /**
         * A DefaultFileRegion whose file descriptor can be had goes with sendfile(2) on the loop: the file's pages go
         * to the socket inside the kernel, as with Netty's epoll transport. Not io_uring's SPLICE: the kernel always
         * hands that to an io-wq worker thread (REQ_F_FORCE_ASYNC), the punting Ringwire avoids. When the socket is
         * full, one POLL_ADD for POLLOUT waits for room.
         *
         * @return false if the region has to be copied instead (no descriptor, or a file sendfile cannot read)
         */
        private boolean sendFile(RingwireIoRegistration r, ChannelOutboundBuffer in, DefaultFileRegion region) {
            FileWrite f = files();
            if (region != f.sendfileRegion) {
                closeSendfileFd();
                f.sendfileRegion = region;
                int[] opened = FileRegionFiles.open(region);
                if (opened != null) {
                    f.sendfileFd = opened[0];
                    f.sendfileOwnsFd = opened[1] == 1;
                }
            }
            if (f.sendfileFd < 0) {
                return false;
            }
            long done = region.transferred();
            long left = region.count() - done;
            if (left <= 0) {
                sendfileFinished(in, null);
                return true;
            }
            if (f.sendfileOffset == null) {
                f.sendfileOffset = java.lang.foreign.Arena.ofAuto().allocate(JAVA_LONG);
            }
            f.sendfileOffset.set(JAVA_LONG, 0, region.position() + done);
            long n = Libc.sendfile(fd, f.sendfileFd, f.sendfileOffset, Math.min(left, 1L << 30));
            RingwireCounters c = r.handler().counters();
            if (n > 0) {
                c.writes++;
                c.writeBytes += n;
                c.sendfileBytes += n;
                FileRegionFiles.transferred(region, done + n);
                in.progress(n);
                if (done + n >= region.count()) {
                    sendfileFinished(in, null);
                } else {
                    doWrite(in); // more: the next call fills the socket or meets EAGAIN
                }
                return true;
            }
            if (n == -Errno.EAGAIN) {
                armWritePoll(r); // (its SQE was reserved before this write began)
                return true;
            }
            if (n == -Errno.EINVAL || n == -Errno.ENOSYS || n == -Errno.EOPNOTSUPP) {
                closeSendfileFd(); // a file sendfile cannot read (e.g. O_DIRECT): copy the rest
                f.sendfileRegion = region;
                return false;
            }
            sendfileFinished(in, n == 0
                ? new IOException("the file ended before the region's " + region.count() + " bytes (at "
                    + (region.position() + done) + "): " + region)
                : new NativeIoException("sendfile", (int) n));
            return true;
        }

        /** The region went out whole ({@code cause} null) or failed; the next message follows. */
        private void sendfileFinished(ChannelOutboundBuffer in, Throwable cause) {
            closeSendfileFd();
            if (cause == null) {
                in.remove();
            } else {
                in.remove(cause);
            }
            if (!in.isEmpty()) {
                doWrite(in);
            }
        }

        /** The socket has room again (or the wait was cancelled): the next sendfile goes before the next enter. */
        private void writePollComplete(int res) {
            ended(WRITE);
            releaseHeldForKernel();
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null || res == -Errno.ECANCELED) {
                return;
            }
            if (res < 0) {
                handleWriteError(new NativeIoException("poll", res));
            } else if (!in.isEmpty()) {
                doWrite(in);
            }
        }

        /** {@code res} bytes of the FileRegion's current chunk were sent. */
        private void fileSent(ChannelOutboundBuffer in, int res) {
            ByteBuf chunk = files.chunk;
            chunk.skipBytes(res);
            if (in != null) {
                in.progress(res);
            }
            if (chunk.isReadable() && isOpen()) {
                return; // a short send: the rest of the chunk goes next
            }
            // sent whole; or the channel closed while the SEND was in flight (doClose left the chunk to this
            // completion), and nothing sends the rest: the buffer goes back to its pool, a mapping is unmapped
            releaseFileChunk();
            if (in != null && in.current() instanceof FileRegion region && region.transferred() >= region.count()) {
                in.remove();
            }
        }

        /**
         * One SENDMSG of the one-byte message that passes {@code passed} (SCM_RIGHTS), as Netty's native domain
         * channels send it; the descriptor stays the application's. The SQE is reserved.
         */
        private void sendDescriptor(RingwireIoRegistration r, ChannelOutboundBuffer in, FileDescriptor passed) {
            if (!passed.isOpen()) {
                // bad input: that write fails, the connection and the writes after it go on
                in.remove(new IllegalArgumentException(passed + " is closed: there is no descriptor to pass"));
                if (!in.isEmpty()) {
                    doWrite(in);
                }
                return;
            }
            int toPass = passed.intValue();
            AbstractRingwireStreamChannel owner = (AbstractRingwireStreamChannel) directOwner(passed);
            boolean fetched = false;
            if (owner != null) {
                Descriptors d = descriptors();
                if (d.fetching == passed) {
                    if (d.fetched < 0) {
                        return; // its fd is on its way from the loop whose table holds it
                    }
                    fetched = true;
                } else {
                    RingwireIoHandler home = owner.slotHome;
                    if (home != null && !home.inLoop() && owner.pendingSocket == null) {
                        fetchDescriptor(owner, home, passed);
                        return;
                    }
                }
            }
            ByteBuf buf = DescriptorMessage.allocate(config.getAllocator());
            if (buf == null) {
                if (fetched) {
                    Libc.close(descriptors.fetched);
                    descriptors.fetched = -1;
                    descriptors.fetching = null;
                }
                handleWriteError(new IllegalStateException("the channel's allocator gives direct buffers without a "
                    + "single native address, to send a descriptor from: " + config.getAllocator()));
                return;
            }
            if (owner != null) {
                // a channel on a direct descriptor has no fd: one is installed for the passing (the peer gets a
                // descriptor of the same socket), and closed once the SENDMSG has ended; a client that has joined
                // no loop yet has no socket at all: it gets one now, with an fd of its own, as without direct ones
                try {
                    Descriptors d = descriptors();
                    if (fetched) {
                        toPass = d.fetched;
                        d.fetched = -1;
                        d.fetching = null;
                        d.installed = toPass;
                    } else if (owner.pendingSocket != null && !owner.isRegistered()) {
                        if (!owner.makeSocket(null)) {
                            throw new NativeIoException("passing " + owner + ", which joined its loop meanwhile",
                                -Errno.EAGAIN);
                        }
                        toPass = owner.fd;
                    } else {
                        toPass = owner.onSlot((h, slot) -> h.syncCalls().installFd(slot));
                        d.installed = toPass;
                    }
                } catch (NativeIoException | RuntimeException e) {
                    buf.release();
                    in.remove(e);
                    if (!in.isEmpty()) {
                        doWrite(in);
                    }
                    return;
                }
            }
            descriptors().send = buf;
            long msghdr = DescriptorMessage.layOut(DescriptorMessage.msghdr(buf), toPass);
            nameSlot(r, r.sq().prepSendmsg(fd, msghdr, SocketConstants.MSG_NOSIGNAL,
                r.nextUserData(IORING_OP_SENDMSG, DESCRIPTOR)));
            startedWrite(IORING_OP_SENDMSG, DESCRIPTOR);
            r.handler().counters().writes++;
        }

        /**
         * Asks the loop whose table holds {@code owner}'s socket for an fd of it, to pass: a task of that loop, which
         * hands the fd back to this channel's loop in a task of its own ({@link #descriptorFetched}), so that
         * neither loop waits for the other. The write waits at the head of the outbound buffer meanwhile.
         */
        private void fetchDescriptor(AbstractRingwireStreamChannel owner, RingwireIoHandler home,
                                     FileDescriptor passed) {
            descriptors().fetching = passed;
            try {
                home.executor().execute(() -> {
                    int installed = -1;
                    Throwable error = null;
                    try {
                        installed = owner.onSlot((h, slot) -> h.syncCalls().installFd(slot));
                    } catch (NativeIoException | RuntimeException e) {
                        error = e;
                    }
                    descriptorFetched(passed, installed, error);
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                descriptorFetched(passed, -1, new NativeIoException("passing a direct descriptor whose loop has "
                    + "ended", -Errno.EBADF));
            }
        }

        /**
         * The fd {@link #fetchDescriptor} asked for (or why there is none) comes to this channel's loop: the passing
         * goes on with it. An fd that is no longer wanted (the channel closed, the write failed) is closed.
         */
        private void descriptorFetched(FileDescriptor passed, int installed, Throwable error) {
            try {
                eventLoop().execute(() -> {
                    Descriptors d = descriptors;
                    ChannelOutboundBuffer in = outboundBuffer();
                    if (d == null || d.fetching != passed || !isOpen() || in == null || in.current() != passed) {
                        if (installed >= 0) {
                            Libc.close(installed);
                        }
                        if (d != null && d.fetching == passed) {
                            d.fetching = null;
                        }
                        return;
                    }
                    if (error != null) {
                        d.fetching = null;
                        in.remove(error); // that write fails; the connection and the writes after it go on
                        if (!in.isEmpty()) {
                            doWrite(in);
                        }
                        return;
                    }
                    d.fetched = installed;
                    doWrite(in);
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                if (installed >= 0) {
                    Libc.close(installed); // this channel's loop has ended
                }
            }
        }

        private void descriptorSendComplete(int res) {
            ended(WRITE);
            releaseHeldForKernel(); // a close while it was in flight held the flushed messages after it
            Descriptors d = descriptors;
            d.send.release();
            d.send = null;
            if (d.installed >= 0) {
                Libc.close(d.installed);
                d.installed = -1;
            }
            ChannelOutboundBuffer in = outboundBuffer();
            if (res > 0 && in != null) {
                in.remove(); // the descriptor is the peer's too now
                if (!in.isEmpty()) {
                    doWrite(in);
                }
            } else if (res == 0 && in != null) {
                doWrite(in); // nothing taken: again
            } else if (res < 0 && res != -Errno.ECANCELED && in != null) {
                handleWriteError(new NativeIoException("sendmsg(SCM_RIGHTS)", res));
            }
        }

        /** A descriptor the peer passed came (or its EOF, or an error): it goes up the pipeline. */
        private void descriptorRecvComplete(int res, int flags) {
            readCompleted(SINGLE, flags);
            Descriptors d = descriptors;
            ByteBuf buf = d.recv;
            d.recv = null;
            RingwireIoRegistration r = registration;
            try {
                if (res > 0) {
                    long msghdr = DescriptorMessage.msghdr(buf);
                    int[] received = DescriptorMessage.receivedFds(msghdr);
                    boolean truncated = DescriptorMessage.truncated(msghdr);
                    if (received.length > 1 || truncated) {
                        // several descriptors in one message: the control buffer has room for two, which the kernel
                        // installed in this process (it closed any more). Every one is closed and the read fails,
                        // as with Netty's epoll (EINVAL; EMSGSIZE when the kernel says it truncated): kept, or left
                        // open, a peer passing them in pairs would fill this process's table. The connection stays,
                        // and the next message is read
                        for (int fd : received) {
                            Libc.close(fd);
                        }
                        if (isOpen()) {
                            pipeline().fireExceptionCaught(new NativeIoException(truncated
                                ? "recvmsg(SCM_RIGHTS) of more descriptors in one message than the "
                                    + DescriptorMessage.MAX_RECEIVED + " that fit"
                                : "recvmsg(SCM_RIGHTS) of " + received.length + " descriptors in one message",
                                truncated ? Errno.EMSGSIZE : Errno.EINVAL));
                        }
                    } else if (received.length == 1 && isOpen()) {
                        RecvByteBufAllocator.ExtendedHandle handle = batchHandle();
                        countRead(handle, 1);
                        if (!config.isAutoRead() && !drainingToEof) {
                            readPending = false;
                        }
                        pipeline().fireChannelRead(new DescriptorMessage.Received(received[0]));
                    } else if (received.length == 1) {
                        Libc.close(received[0]); // the channel closed while it came: nobody to own it
                    } // else a byte without a descriptor: consumed, as Netty's native channels do
                } else if (res == 0) {
                    eofSeen = true;
                } else if (res != -Errno.ECANCELED) {
                    readError = new NativeIoException("recvmsg(SCM_RIGHTS)", res);
                }
            } finally {
                buf.release();
            }
            recvNeedsRearm = true;
            readDone(r, true);
        }

        private void writeComplete(int res) {
            ChannelOutboundBuffer in = outboundBuffer();
            boolean settled = writeSettledAhead;
            writeSettledAhead = false;
            if (res >= 0) {
                registration.handler().counters().writeBytes += res;
                boolean fileChunk = files != null && files.chunk != null;
                if (!fileChunk && in != null && !settled) {
                    // the written buffers leave while the write still counts as in flight: a promise's listener
                    // that closes the channel in here makes the close hold what is left for the kernel, not
                    // write the same bytes again (Vert.x's HTTP client closing after its last chunk sent it twice)
                    removeWritten(in, res);
                }
                ended(WRITE);
                releaseHeldForKernel();
                if (fileChunk) {
                    fileSent(in, res);
                }
                if (in != null && !in.isEmpty()) {
                    doWrite(in);
                }
                return;
            }
            ended(WRITE);
            releaseHeldForKernel();
            if ((res == -Errno.EINPROGRESS || res == -Errno.EALREADY) && in != null && isOpen() && fd >= 0) {
                waitForConnection();
                return;
            }
            releaseFileChunk();
            if (res == -Errno.ECANCELED || in == null) {
                return;
            }
            handleWriteError(new NativeIoException("send", res));
        }

        /**
         * A send found the connection not yet made (EINPROGRESS, EALREADY: the bytes were not taken). With
         * TCP_FASTOPEN_CONNECT the kernel defers connect when it holds a cookie, and the first send carries the SYN;
         * should that send not complete the connection, it says EINPROGRESS. Defensive: Linux 6.18 was not seen to
         * do it (FastOpenTest passes without this). One POLL_ADD for POLLOUT waits, then the write goes again.
         */
        private void waitForConnection() {
            RingwireIoRegistration r = registration;
            if (r == null || !r.isValid()) {
                return;
            }
            if (!r.reserveSqe()) {
                r.retryNextIteration(); // the write is tried again; it waits here once more if still connecting
                return;
            }
            armWritePoll(r);
        }

        /** One POLL_ADD for POLLOUT, in place of the write, whose completion writes again; the SQE is reserved. */
        private void armWritePoll(RingwireIoRegistration r) {
            nameSlot(r, r.sq().prepPollAdd(fd, SocketConstants.POLLOUT, false,
                r.nextUserData(IORING_OP_POLL_ADD, WRITE_POLL)));
            startedWrite(IORING_OP_POLL_ADD, WRITE_POLL);
        }
    }

}
