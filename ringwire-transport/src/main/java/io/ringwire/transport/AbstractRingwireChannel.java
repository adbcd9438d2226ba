package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelId;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * What every Ringwire channel shares: the socket fd, the registration with the loop's {@link RingwireIoHandler},
 * addresses, and the close path. Closing cancels every operation the kernel holds for the channel (by user_data, so a
 * reused fd number is never hit), then closes the fd; the registration leaves the loop only after the last of those
 * completions, which is when memory they point at may be reused.
 */
abstract class AbstractRingwireChannel extends AbstractChannel implements UnixChannel {
    static final InternalLogger logger = InternalLoggerFactory.getInstance(AbstractRingwireChannel.class);

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    /** The socket; -1 once closed; {@code Integer.MAX_VALUE} for a connection on a direct descriptor (no fd). */
    protected int fd;
    /**
     * {@link #fd} of a connection on a direct descriptor: its socket lives in a slot of a loop's fixed-file table and
     * has no fd. A call made with this number by mistake fails with EBADF, never reaching another socket.
     */
    static final int DIRECT_DESCRIPTOR_FD = Integer.MAX_VALUE;
    /** Connected, or bound for a listener: what {@link #isActive()} says. */
    protected volatile boolean active;
    private volatile boolean open = true;
    /** user_data data of the multishot read op (ACCEPT or RECV) and of its single-shot form for autoRead off. */
    static final int MULTISHOT = 0;
    static final int SINGLE = 1;
    /** user_data data of a single-shot RECV straight into an allocator buffer (bulk streams). */
    static final int OWN_BUFFER = 2;

    RingwireIoRegistration registration;

    /*
     * The operations of this channel the kernel holds, one bit each: the one record that reading, writing, close,
     * deregistration and autoRead all consult. Set when the SQE is prepared, cleared by its final CQE.
     */
    /** The multishot read op (ACCEPT, RECV or RECVMSG). */
    static final int READ_MULTISHOT = 1;
    /** A single-shot read from the loop's buffer ring (autoRead off). */
    static final int READ_SINGLE = 1 << 1;
    /** A single-shot read into a buffer of the channel's own. */
    static final int READ_OWN_BUFFER = 1 << 2;
    /** A POLL_ADD watching for the peer's FIN while reading is paused. */
    static final int PEER_CLOSE_WATCH = 1 << 3;
    /** The write (SEND or SENDMSG: see {@link #writeOpcode}). */
    static final int WRITE = 1 << 4;
    static final int CONNECT = 1 << 5;
    private int opsInFlight;
    /** The opcode of the write in flight. */
    private byte writeOpcode;
    private int writeData;
    /** Whether a read() waits to be satisfied (autoRead off). */
    boolean readPending;
    /** The close has begun away from the loop (SO_LINGER): nothing new may be armed. */
    boolean closingOffLoop;
    /** What Netty's loop handed out (a wrapper that also counts registrations); cancelled on deregister. */
    private IoRegistration loopRegistration;
    /** After a deregistration: the old registration while operations of it are still in flight, and its loop. */
    private RingwireIoRegistration staleRegistration;
    private EventLoop staleLoop;
    private volatile SocketAddress local;
    private volatile SocketAddress remote;
    /** Whether the socket has a local address worth asking for: bound, connected or accepted. */
    private volatile boolean hasLocalAddress;

    AbstractRingwireChannel(Channel parent, int fd, boolean active) {
        super(parent);
        this.fd = fd;
        this.active = active;
        this.hasLocalAddress = active;
    }

    /** @return whether this channel's socket is a direct descriptor: a slot of a loop's fixed-file table, no fd */
    final boolean isDirectDescriptor() {
        return fd == DIRECT_DESCRIPTOR_FD;
    }

    // ---------------------------------------------------------------- calls on the socket outside its SQEs

    /** A call that needs the socket's fd. */
    interface FdCall<T> {
        /**
         * @param fd the socket's
         * @return the call's result
         */
        T apply(int fd) throws NativeIoException;
    }

    /**
     * Runs {@code call} with the socket's fd; a connection on a direct descriptor gets one installed for the call and
     * closed right after it ({@link AbstractRingwireStreamChannel}).
     */
    <T> T withFd(FdCall<T> call) throws NativeIoException {
        return call.apply(fd);
    }

    /** getsockopt of an int. */
    int getIntOption(int level, int name) throws NativeIoException {
        return Sockets.getInt(fd, level, name);
    }

    /** setsockopt of an int. */
    void setIntOption(int level, int name, int value) throws NativeIoException {
        Sockets.setInt(fd, level, name, value);
    }

    /** getsockopt of up to {@code length} bytes: what the kernel wrote. */
    byte[] getBytesOption(int level, int name, int length) throws NativeIoException {
        return Sockets.getBytes(fd, level, name, length);
    }

    /** setsockopt of bytes. */
    void setBytesOption(int level, int name, byte[] value) throws NativeIoException {
        Sockets.setBytes(fd, level, name, value);
    }

    /** A {@link RingwireChannelId}: 24 bytes per channel where Netty's default id takes 48. */
    @Override
    protected final ChannelId newId() {
        return RingwireChannelId.next();
    }

    /** @return IPv6 (a dual-stack socket) when the host can open one, otherwise IPv4 */
    static io.netty.channel.socket.InternetProtocolFamily defaultFamily() {
        int probe = Libc.socket(io.ringwire.uring.SocketConstants.AF_INET6,
            io.ringwire.uring.SocketConstants.SOCK_STREAM | io.ringwire.uring.SocketConstants.SOCK_CLOEXEC, 0);
        if (probe >= 0) {
            Libc.close(probe);
            return io.netty.channel.socket.InternetProtocolFamily.IPv6;
        }
        return io.netty.channel.socket.InternetProtocolFamily.IPv4;
    }

    /** Opens a non-blocking TCP socket of the family, as a constructor argument (hence unchecked). */
    static int openStream(io.netty.channel.socket.InternetProtocolFamily family) {
        return openSocket(inetFamily(family), io.ringwire.uring.SocketConstants.SOCK_STREAM);
    }

    /** @return AF_INET6 or AF_INET */
    static int inetFamily(io.netty.channel.socket.InternetProtocolFamily family) {
        return family == io.netty.channel.socket.InternetProtocolFamily.IPv6
            ? io.ringwire.uring.SocketConstants.AF_INET6 : io.ringwire.uring.SocketConstants.AF_INET;
    }

    /**
     * Opens a non-blocking socket, as a constructor argument (hence unchecked).
     *
     * @param family {@code AF_INET}, {@code AF_INET6}, {@code AF_UNIX}
     * @param type   {@code SOCK_STREAM} or {@code SOCK_DGRAM}
     */
    static int openSocket(int family, int type) {
        try {
            return Sockets.open(family, type);
        } catch (NativeIoException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Moves {@code n} bytes from {@code src} to {@code dst}. Native to native when both addresses are known: one
     * memcpy and no garbage (Netty's {@code writeBytes(ByteBuffer)} allocates a ByteBuffer view of each new pooled
     * buffer when sun.misc.Unsafe is off, as it is by default on JDK 24+).
     *
     * @param srcAddress the native address of {@code src}'s index 0 (not of its position), or 0 if unknown
     */
    static void copy(java.nio.ByteBuffer src, long srcAddress, ByteBuf dst, int n) {
        int position = src.position();
        if (srcAddress != 0 && dst.hasMemoryAddress()) {
            int writerIndex = dst.writerIndex();
            if (io.netty.util.internal.PlatformDependent.hasUnsafe()) {
                // dst has a memory address only when Netty uses sun.misc.Unsafe: its copy has none of the segment
                // checks (session, read-only, bounds), a cost every small receive would pay
                io.netty.util.internal.PlatformDependent.copyMemory(srcAddress + position,
                    dst.memoryAddress() + writerIndex, n);
            } else {
                io.ringwire.uring.RawMemory.copy(srcAddress + position, dst.memoryAddress() + writerIndex, n);
            }
            dst.writerIndex(writerIndex + n);
            src.position(position + n);
            return;
        }
        int limit = src.limit();
        src.limit(position + n);
        dst.writeBytes(src);
        src.limit(limit);
    }

    /**
     * Messages of a write the kernel still reads, retained after the outbound buffer let go of them (it is failed on
     * close and shutdownOutput, which releases what it holds); released by that write's last completion.
     */
    private Object[] heldForKernel;

    /**
     * Retains the first {@code count} flushed messages of {@code in} until {@link #releaseHeldForKernel()}: call before
     * the outbound buffer is failed while a write of them is in flight. Once per write: a second call keeps the first.
     */
    final void holdForKernel(io.netty.channel.ChannelOutboundBuffer in, int count) {
        if (heldForKernel != null || in == null) {
            return;
        }
        heldForKernel = retainFlushed(in, count);
    }

    /** The write the kernel read from has completed: what {@link #holdForKernel} retained goes back. */
    final void releaseHeldForKernel() {
        Object[] held = heldForKernel;
        if (held != null) {
            heldForKernel = null;
            releaseAll(held);
        }
    }

    /**
     * Retains the first {@code count} flushed messages of {@code in}, for memory the kernel may still read after the
     * outbound buffer has let go of them.
     *
     * @return the messages retained, for {@link #releaseAll}
     */
    static Object[] retainFlushed(io.netty.channel.ChannelOutboundBuffer in, int count) {
        Object[] held = new Object[count];
        int[] n = {0};
        try {
            in.forEachFlushedMessage(msg -> {
                if (n[0] == count) {
                    return false;
                }
                held[n[0]++] = ReferenceCountUtil.retain(msg);
                return true;
            });
        } catch (Exception e) {
            logger.debug("retaining in-flight messages failed", e);
        }
        return n[0] == count ? held : java.util.Arrays.copyOf(held, n[0]);
    }

    /** Releases what {@link #retainFlushed} retained. */
    static void releaseAll(Object[] held) {
        for (Object msg : held) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** What {@link #fd()} handed out, made on first use. */
    private ChannelFd fdView;

    /**
     * @return the socket's file descriptor, as Netty's native transports hand it out; it reports closed once the
     *         channel is, and closing it closes the channel. A connection on a direct descriptor has none: its
     *         {@code toString()} says where the socket is (a slot of a loop's fixed-file table), and its
     *         {@code intValue()} is {@link Integer#MAX_VALUE}, which names no file (a call made with it fails with
     *         EBADF)
     */
    @Override
    public FileDescriptor fd() {
        ChannelFd v = fdView;
        if (v == null || fd >= 0 && v.intValue() != fd) { // (a client's socket made after a first view of it)
            fdView = v = new ChannelFd(this);
        }
        return v;
    }

    /**
     * @return the channel whose {@link #fd()} {@code d} is, when that channel's socket is a direct descriptor (it has
     *         no fd to pass: one is installed for the passing); else null
     */
    static AbstractRingwireChannel directDescriptorOwner(FileDescriptor d) {
        return d instanceof ChannelFd c && c.channel.isDirectDescriptor() ? c.channel : null;
    }

    /**
     * The channel's fd as a {@link FileDescriptor}. Only its number, {@code isOpen()} and {@code close()} are
     * Ringwire's: its read and write methods are Netty's JNI, which Ringwire does not load; use the channel instead.
     */
    private static final class ChannelFd extends FileDescriptor {
        private final AbstractRingwireChannel channel;

        ChannelFd(AbstractRingwireChannel channel) {
            super(Math.max(channel.fd, 0)); // a direct descriptor's DIRECT_DESCRIPTOR_FD: no file has that number
            this.channel = channel;
        }

        @Override
        public boolean isOpen() {
            return channel.fd >= 0;
        }

        @Override
        public void close() {
            channel.close();
        }

        @Override
        public String toString() {
            if (channel.isDirectDescriptor()) {
                return "FileDescriptor{none: " + channel.directDescriptorPlace() + "}";
            }
            return "FileDescriptor{fd=" + intValue() + (isOpen() ? "" : ", closed") + "}";
        }
    }

    /** @return for a connection on a direct descriptor, where its socket is; see the stream channel */
    String directDescriptorPlace() {
        return "a direct descriptor";
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop l && l.isCompatible(RingwireUnsafe.class);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        RingwireIoRegistration stale = staleRegistration;
        EventLoop staleLoop = this.staleLoop;
        staleRegistration = null;
        this.staleLoop = null;
        if (stale != null) {
            // the previous loop still has operations of this channel in flight (cancelled, their completions due):
            // register here only once they are in, so that one loop at a time reads and writes the socket; and only
            // from a task of that loop, after the iteration that brought the last of them, whose end-of-batch calls
            // still act on the old registration
            Runnable joinNewLoop = () -> {
                try {
                    staleLoop.execute(() -> register0(promise));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    abandon(promise, e); // the old loop shut down in between
                }
            };
            try {
                staleLoop.execute(() -> stale.runWhenIdle(joinNewLoop));
                return;
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // that loop has shut down: closing its ring ended them
            }
        }
        register0(promise);
    }

    /**
     * A registration that cannot happen any more (a loop shut down): the channel is closed here, closeFuture
     * included, and the promise failed. Netty would close it in the promise's listener, but that runs on the new
     * loop, which may be gone too.
     */
    private void abandon(ChannelPromise promise, Throwable cause) {
        unsafe().close(unsafe().voidPromise());
        promise.tryFailure(cause);
    }

    private void register0(ChannelPromise promise) {
        io.netty.util.concurrent.Future<IoRegistration> registered;
        try {
            registered = ((IoEventLoop) eventLoop()).register((RingwireUnsafe) unsafe());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            abandon(promise, e); // the loop has terminated
            return;
        }
        registered.addListener(f -> {
            if (f.isSuccess()) {
                loopRegistration = (IoRegistration) f.getNow();
                registration = loopRegistration.attachment();
                RingwireIoRegistration r = registration;
                arrive(r, () -> {
                    joined(r);
                    promise.setSuccess();
                    reregistered();
                }, cause -> {
                    registration = null;
                    loopRegistration.cancel();
                    promise.setFailure(cause); // Netty closes the channel
                });
            } else {
                abandon(promise, f.cause());
            }
        });
    }

    /**
     * The socket comes to the registration's loop, on that loop: a connection on a direct descriptor moves to its
     * table (or, a client, is made there) before anything else happens; others are there already.
     *
     * @param then   what registering does next, once the socket is there
     * @param failed what it does if the socket cannot come (the registration fails, and Netty closes the channel)
     */
    void arrive(RingwireIoRegistration r, Runnable then, java.util.function.Consumer<Throwable> failed) {
        then.run();
    }

    /** Registered with a loop (the first time or again), on that loop, before any handler hears of it. */
    void joined(RingwireIoRegistration r) {
    }

    /**
     * About to leave the loop of {@code r}, or to close the fd, with every SQE of this channel that names the fd
     * submitted: a stream channel empties its fixed-file slot here.
     */
    void leaving(RingwireIoRegistration r) {
    }

    /**
     * Registered with a loop again after a deregistration: take up what Netty does not restart itself (a read()
     * that was pending with autoRead off, flushed writes).
     */
    void reregistered() {
    }

    /**
     * Leaves the loop: every operation the kernel holds for the channel is cancelled (a receive left armed would
     * keep reading into this loop's buffers while another loop reads the same socket), and the registration ends
     * when their completions are in; {@link #doRegister} waits for that before joining another loop.
     */
    @Override
    protected void doDeregister() {
        RingwireIoRegistration r = registration;
        if (r != null && r.isValid() && isOpen() && eventLoop().inEventLoop()) {
            // (a direct descriptor's slot is not emptied)
            boolean queued = r.hasUnsubmittedSqe() && !isDirectDescriptor();
            cancelInFlight(r); // (a close has cancelled them already)
            if (queued) {
                r.handler().submitBeforeClose(r); // SQEs naming the fixed-file slot go before it is emptied
            }
        }
        if (r != null && isOpen()) {
            leaving(r);
        }
        IoRegistration l = loopRegistration;
        if (l != null) {
            l.cancel();
        }
        if (r != null && r.inFlight() > 0) {
            staleRegistration = r;
            staleLoop = eventLoop();
        }
    }

    /** @return the opcode of this channel's read ops: ACCEPT for servers, RECV for streams, RECVMSG for datagrams */
    abstract byte readOpcode();

    /** @return whether any of {@code ops} (bits such as {@link #READ_MULTISHOT}) is in flight */
    final boolean inFlight(int ops) {
        return (opsInFlight & ops) != 0;
    }

    /** Records that an op was submitted (call after preparing its SQE). */
    final void started(int op) {
        opsInFlight |= op;
    }

    /** Records that a write op of {@code opcode} was submitted. */
    final void startedWrite(byte opcode) {
        startedWrite(opcode, 0);
    }

    /** Records that a write op of {@code opcode} and user_data {@code data} was submitted. */
    final void startedWrite(byte opcode, int data) {
        writeOpcode = opcode;
        writeData = data;
        opsInFlight |= WRITE;
    }

    /**
     * @return whether the write in flight is a send of the outbound buffer's own buffers (SEND, SENDMSG or their
     *     zero-copy forms), not a passed descriptor's message nor a wait for room
     */
    final boolean writeInFlightSendsBuffers() {
        return inFlight(WRITE) && switch (writeOpcode) {
            case IoUringConstants.IORING_OP_SEND, IoUringConstants.IORING_OP_SEND_ZC,
                 IoUringConstants.IORING_OP_SENDMSG_ZC -> true;
            case IoUringConstants.IORING_OP_SENDMSG -> writeData == 0;
            default -> false;
        };
    }

    /**
     * @return the result of the write in flight when the kernel has posted its CQE, later in the batch of completions
     *     being handled, else {@link Integer#MIN_VALUE}
     */
    final int writeResultPosted() {
        RingwireIoRegistration r = registration;
        return r == null || !inFlight(WRITE) ? Integer.MIN_VALUE
            : r.handler().postedResult(r.userData(writeOpcode, writeData));
    }

    /** Records the final CQE of an op. */
    final void ended(int op) {
        opsInFlight &= ~op;
    }

    /**
     * Records a read op's CQE by its user_data data ({@link #MULTISHOT}, {@link #SINGLE}, {@link #OWN_BUFFER}): a
     * multishot one ends only with the CQE that has no F_MORE.
     *
     * @return whether the op ended
     */
    final boolean readCompleted(int data, int cqeFlags) {
        if (data == MULTISHOT) {
            if (IoUringCqe.hasMore(cqeFlags)) {
                return false;
            }
            ended(READ_MULTISHOT);
        } else {
            ended(data == SINGLE ? READ_SINGLE : READ_OWN_BUFFER);
        }
        return true;
    }

    /** The kernel refused the SQE of a read op (SQ full, nothing taken): arm again next iteration. */
    boolean armRetry;

    /**
     * Reserves the SQE of a read op; when the kernel refuses it, nothing changes and {@link #armRetry} asks for
     * another try in the next iteration's {@code prepareBeforeEnter()}.
     *
     * @return whether the SQE may be prepared
     */
    final boolean reserveReadSqe(RingwireIoRegistration r) {
        if (r.reserveSqe()) {
            return true;
        }
        armRetry = true;
        r.retryNextIteration();
        return false;
    }

    /**
     * autoRead went off: forget the pending read, and stop the multishot read op at once if
     * {@link #cancelReadAtOnceWhenPaused()}, so the transport stops consuming when the application stops reading.
     * Hops to the event loop when called from another thread.
     */
    void clearReadPending() {
        if (isRegistered() && !eventLoop().inEventLoop()) {
            eventLoop().execute(this::clearReadPending);
            return;
        }
        readPending = false;
        trace("autoRead off");
        RingwireIoRegistration r = registration;
        if (inFlight(READ_MULTISHOT) && r != null && r.isValid() && cancelReadAtOnceWhenPaused()) {
            cancel(r, readOpcode(), MULTISHOT);
        }
        readPaused();
    }

    /**
     * Reading may have paused (autoRead off, no read() pending), or the channel joined a loop: a stream channel
     * watches for the peer's close from here, so that it is seen without a read(). On the loop.
     */
    void readPaused() {
    }

    /**
     * @return whether turning autoRead off cancels the multishot read op at once; otherwise the channel cancels it
     *         when a completion arrives while paused, and keeps that completion for the next read()
     */
    boolean cancelReadAtOnceWhenPaused() {
        return true;
    }

    /**
     * Cancels every op of this channel the kernel holds, each by its user_data (never by fd, whose number may belong
     * to a new socket by the time the cancel is submitted); their CQEs come back with -ECANCELED.
     */
    final void cancelInFlight(RingwireIoRegistration r) {
        cancelReads(r);
        int ops = opsInFlight;
        if ((ops & PEER_CLOSE_WATCH) != 0) {
            cancel(r, IoUringConstants.IORING_OP_POLL_ADD, 0);
        }
        if ((ops & WRITE) != 0) {
            // the kernel is waiting for socket space, as epoll would be for EPOLLOUT: the close drops it
            cancel(r, writeOpcode, writeData);
        }
        if ((ops & CONNECT) != 0) {
            cancel(r, IoUringConstants.IORING_OP_CONNECT, 0);
        }
        cancelMoreInFlight(r);
    }

    /** Cancels this channel's read ops the kernel holds, each by its user_data. */
    final void cancelReads(RingwireIoRegistration r) {
        int ops = opsInFlight;
        if ((ops & READ_MULTISHOT) != 0) {
            cancel(r, readOpcode(), MULTISHOT);
        }
        if ((ops & READ_SINGLE) != 0) {
            cancel(r, readOpcode(), SINGLE);
        }
        if ((ops & READ_OWN_BUFFER) != 0) {
            cancel(r, readOpcode(), OWN_BUFFER); // its buffer is released when the cancellation completes
        }
    }

    /** Cancels ops the bits above do not cover (a datagram channel's several sends). */
    void cancelMoreInFlight(RingwireIoRegistration r) {
    }

    /** Cancels one op of this channel by its user_data; its CQE comes back with -ECANCELED. */
    final void cancel(RingwireIoRegistration r, byte opcode, int data) {
        r.handler().cancel(r, r.userData(opcode, data));
    }

    @Override
    protected void doClose() throws Exception {
        trace("close");
        active = false;
        open = false;
        int f = fd;
        if (f < 0) {
            return;
        }
        fd = -1;
        RingwireIoRegistration r = registration;
        if (r != null && eventLoop().inEventLoop()) {
            // an SQE naming this fd may still wait in the SQ (a RECV armed earlier in this iteration, say): once
            // close(2) returns, the number can belong to a new socket, and that SQE would read from it; so it
            // leaves first, while the number is still ours (asked before the cancels below, which name no fd)
            // (a direct descriptor's slot is emptied by an SQE queued after them: no enter needed)
            boolean queued = r.hasUnsubmittedSqe() && f != DIRECT_DESCRIPTOR_FD;
            if (r.isValid()) {
                cancelInFlight(r);
            }
            if (queued) {
                r.handler().submitBeforeClose(r);
            }
        }
        if (r != null) {
            leaving(r);
        }
        // ops the kernel still holds keep their own reference to the socket; the cancels above release them
        closeSocket(f);
    }

    /** Closes the socket once the channel has let go of it (close(2); a direct descriptor empties its slot). */
    void closeSocket(int f) throws Exception {
        NativeIoException.check(Libc.close(f), "close");
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected SocketAddress localAddress0() {
        SocketAddress a = local;
        if (a == null && fd >= 0 && hasLocalAddress) {
            try {
                local = a = readAddress(true);
            } catch (NativeIoException e) {
                return null;
            }
        }
        return a;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        SocketAddress a = remote;
        if (a == null && fd >= 0 && active) {
            try {
                remote = a = readAddress(false);
            } catch (NativeIoException e) {
                return null;
            }
        }
        return a;
    }

    /** @return the local address asked for earlier, or null */
    final SocketAddress cachedLocalAddress() {
        return local;
    }

    /** @return the remote address asked for earlier (or known from connect), or null */
    final SocketAddress cachedRemoteAddress() {
        return remote;
    }

    void cacheRemoteAddress(SocketAddress a) {
        remote = a;
    }

    void resetLocalAddress() {
        local = null;
        hasLocalAddress = true;
    }

    /**
     * Asks the kernel for the socket's address.
     *
     * @param ofSocket its own address (getsockname), or its peer's (getpeername)
     * @return the address, or null if it has none
     * @throws NativeIoException e.g. ENOTCONN
     */
    SocketAddress readAddress(boolean ofSocket) throws NativeIoException {
        return ofSocket ? Sockets.localAddress(fd) : Sockets.remoteAddress(fd);
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        bindSocket(localAddress);
        local = readAddress(true);
        hasLocalAddress = true;
    }

    /** bind(2) with an address of the channel's family. */
    void bindSocket(SocketAddress localAddress) throws Exception {
        checkResolvable(localAddress);
        Sockets.bind(fd, localAddress);
    }

    static void checkResolvable(SocketAddress a) throws UnknownHostException {
        if (a instanceof InetSocketAddress i && i.isUnresolved()) {
            throw new UnknownHostException(i.getHostString());
        }
    }

    /** Heap buffers become direct ones, so writes can hand their addresses to the kernel. */
    static ByteBuf toDirect(ByteBuf buf, ByteBufAllocator alloc) {
        if (buf.isDirect()) {
            return buf;
        }
        int n = buf.readableBytes();
        ByteBuf direct = alloc.directBuffer(n);
        direct.writeBytes(buf, buf.readerIndex(), n);
        ReferenceCountUtil.safeRelease(buf);
        return direct;
    }

    /**
     * @return for a Unix domain address whose path has no socket (ENOENT), a {@link java.io.FileNotFoundException}
     *         naming it, as Netty's native channels throw it; null for any other error
     */
    static java.io.FileNotFoundException noSocketAt(int res, SocketAddress address) {
        if (res != -Errno.ENOENT || !(address instanceof io.netty.channel.unix.DomainSocketAddress
            || address instanceof java.net.UnixDomainSocketAddress)) {
            return null;
        }
        return new java.io.FileNotFoundException(address + ": no socket at that path (ENOENT)");
    }

    /**
     * @return the native address of {@code buf}'s bytes {@code [index, index + length)}, or 0 if they are not in
     *         one piece of native memory (a heap buffer, a composite of several): through the NIO view when Netty
     *         has no sun.misc.Unsafe (JDK 24+'s default), which costs one small object
     */
    static long nativeAddress(ByteBuf buf, int index, int length) {
        if (buf.hasMemoryAddress()) {
            return buf.memoryAddress() + index;
        }
        if (buf.isDirect() && buf.nioBufferCount() == 1) {
            return java.lang.foreign.MemorySegment.ofBuffer(buf.internalNioBuffer(index, length)).address();
        }
        return 0;
    }

    /** close(2) is about to run off the loop once the operations cancelled on {@code r} have ended; on the loop. */
    void beforeCloseOffLoop(RingwireIoRegistration r) {
    }

    /** @return the socket's SO_LINGER timeout in seconds, or 0 if close(2) does not wait */
    int lingerSeconds() {
        return 0;
    }

    /** This channel's last operations, with {@code -Dringwire.trace=N}; else null. */
    final OpTrace opTrace = OpTrace.ON ? new OpTrace() : null;

    /** Records a channel event in the trace, with {@code -Dringwire.trace}. */
    final void trace(String event) {
        if (OpTrace.ON) {
            opTrace.note(event);
        }
    }

    /** The unsafe of every Ringwire channel is also its {@link RingwireIoHandle}. */
    abstract class RingwireUnsafe extends AbstractUnsafe implements RingwireIoHandle {
        /** @return the channel's trace (null unless {@link OpTrace#ON}) */
        final OpTrace opTrace() {
            return opTrace;
        }

        /**
         * With SO_LINGER above 0, close(2) may wait for the peer to take the unsent bytes: it must not wait on the
         * event loop. Every operation of the channel is cancelled here, on the loop, and close(2) runs on Netty's
         * global executor once their completions are in (until then they hold a reference to the socket, and the
         * last reference, dropped on the loop's thread, would do the waiting there).
         */
        @Override
        protected java.util.concurrent.Executor prepareToClose() {
            RingwireIoRegistration r = registration;
            int linger;
            try {
                linger = isOpen() && fd >= 0 ? lingerSeconds() : 0;
            } catch (RuntimeException e) {
                linger = 0;
            }
            if (linger <= 0 || r == null || !eventLoop().inEventLoop()) {
                return null;
            }
            closingOffLoop = true;
            if (r.isValid()) {
                cancelInFlight(r);
            }
            beforeCloseOffLoop(r);
            return task -> r.runWhenIdle(() -> io.netty.util.concurrent.GlobalEventExecutor.INSTANCE.execute(task));
        }

        /**
         * The loop closes its handles when it shuts down; a channel that has since moved to another loop (its
         * registration here not yet cancelled) is that loop's to close, not this one's.
         */
        @Override
        public void close() {
            if (eventLoop().inEventLoop()) {
                close(voidPromise());
            }
        }

        /**
         * The close's later half (channelInactive, channelUnregistered) normally runs as a task of the loop, which
         * rejects it now: run it here, on the loop's thread, so that handlers free what they hold.
         */
        @Override
        public void closeOnStoppedLoop() {
            if (!eventLoop().inEventLoop()) {
                return; // another loop's channel now
            }
            boolean wasActive = isActive();
            boolean wasOpen = isOpen();
            close(voidPromise());
            if (!wasOpen) {
                return;
            }
            if (wasActive) {
                pipeline().fireChannelInactive();
            }
            pipeline().fireChannelUnregistered();
        }

        @Override
        public void unregistered() {
            // every op the kernel held for this channel has completed
        }
    }
}
