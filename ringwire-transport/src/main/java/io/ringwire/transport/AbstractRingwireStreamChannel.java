package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.DuplexChannelConfig;
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
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;

import static io.ringwire.uring.IoUringConstants.IORING_CQE_F_SOCK_NONEMPTY;
import static io.ringwire.uring.IoUringConstants.IORING_OP_CONNECT;
import static io.ringwire.uring.IoUringConstants.IORING_OP_POLL_ADD;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECV;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECVMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG_ZC;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND_ZC;

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
 * <p><b>Bulk streams</b> switch to own-buffer receives, straight into a buffer from the channel's allocator, and
 * write the echo of a receive at once from channelReadComplete ({@link BulkStream}).
 *
 * <p><b>Writes</b>: {@code flush()} only marks the channel; just before the loop's next {@code io_uring_enter} all
 * flushed buffers are gathered into one SEND (one buffer) or SENDMSG (up to 1024 iovecs, capped at
 * {@link RingwireIoHandlerConfig#maxBytesPerWrite()} bytes), so one iteration's flushes leave in one SQE. At most one
 * write is in flight per channel, so order holds and the bytes the kernel holds are bounded; its completion removes
 * what was written (a short write continues from there), which updates writability synchronously. A bulk stream's
 * flush from channelReadComplete is the exception ({@link BulkStream#writeInline}); what the socket does not take goes
 * with the next enter as above.
 */
abstract class AbstractRingwireStreamChannel extends AbstractRingwireChannel implements DuplexChannel {

    /** The channel's options; set by the subclass's constructor. */
    DuplexChannelConfig config;

    /** Whether this is a bulk stream, and its inline writes. */
    private final BulkStream bulk = new BulkStream(this);

    /** Bytes a bulk stream's read loop hands up before channelReadComplete: few enough to be in cache when written. */
    static final int READ_LOOP_BYTES = 256 * 1024;

    /** The buffer the in-flight own-buffer RECV writes into; the channel owns it until the CQE. */
    private ByteBuf ownBuffer;
    /**
     * The shared ring was empty, and at its largest, for this connection's last receive: the next one goes into a
     * buffer of its own.
     */
    private boolean ringDry;
    private boolean readInBatch;
    /** The last receive's CQE said more bytes were waiting in the socket (IORING_CQE_F_SOCK_NONEMPTY). */
    private boolean moreWaiting;
    boolean eofSeen;
    /**
     * The peer has closed (its FIN seen while reading was paused): read on to the EOF whatever autoRead and the
     * allocator's budget say, delivering every byte, as Netty's epoll does on EPOLLRDHUP; then the close, or the input
     * shutdown with half-closure allowed.
     */
    boolean drainingToEof;
    boolean recvNeedsRearm;
    /**
     * The write in flight was settled from its CQE, seen ahead of its turn by a close in the same batch
     * ({@code settleWritePosted}): when that CQE's turn comes it only ends the write.
     */
    private boolean writeSettledAhead;
    IOException readError;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;

    /** Bytes received but not yet delivered, because autoRead is off and the read loop's budget ran out. */
    private ByteBuf pendingInput;
    /** user_data data of the POLL_ADD that waits for socket space between two sendfile calls. */
    static final int WRITE_POLL = 1;

    /** Null until the channel's first descriptor passed (Unix domain sockets only). */
    private DescriptorPassing descriptors;

    private DescriptorPassing descriptors() {
        DescriptorPassing d = descriptors;
        return d != null ? d : (descriptors = new DescriptorPassing(this));
    }

    /** Null until the channel's first FileRegion. */
    private FileRegionWriter files;

    private FileRegionWriter files() {
        FileRegionWriter f = files;
        return f != null ? f : (files = new FileRegionWriter(this));
    }

    private boolean pendingInputTaskScheduled;

    /** A connect in progress (client channels only, and only until it completes). */
    ConnectAttempt connecting;

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

    /** Where the socket lives (an fd, a fixed-file slot, a direct descriptor), and the calls that depend on it. */
    final StreamSocket socket;

    AbstractRingwireStreamChannel(Channel parent, int fd, boolean active) {
        super(parent, fd, active);
        this.socket = new StreamSocket(this, null);
    }

    /**
     * A connection accepted into a direct descriptor.
     *
     * @param slot its slot in {@code home}'s fixed-file table
     * @param home the accepting loop
     */
    AbstractRingwireStreamChannel(Channel parent, int slot, RingwireIoHandler home) {
        super(parent, DIRECT_DESCRIPTOR_FD, true);
        this.socket = new StreamSocket(this, slot, home);
    }

    /**
     * A client. With {@code fd} {@link #DIRECT_DESCRIPTOR_FD} its socket is made in the fixed-file table of the loop
     * it joins (SOCKET into a slot), or with an fd if that loop has no direct descriptors; options set before that
     * wait in {@link StreamSocket.PendingSocket}.
     *
     * @param family {@code AF_INET}, {@code AF_INET6} or {@code AF_UNIX} for a socket made later; else ignored
     * @param fd     the socket, or {@link #DIRECT_DESCRIPTOR_FD}
     */
    AbstractRingwireStreamChannel(int family, int fd) {
        super(null, fd, false);
        this.socket = new StreamSocket(this,
            fd == DIRECT_DESCRIPTOR_FD ? new StreamSocket.PendingSocket(family) : null);
    }

    /** No family: a client channel that opened its socket with an fd. */
    static final int AF_NONE = -1;

    /** @return the local and remote addresses known without asking the kernel, for {@code toString} */
    String cachedAddresses() {
        return cachedLocalAddress() + " -> " + cachedRemoteAddress();
    }

    /**
     * Writes the address to connect to in native memory.
     *
     * @param remote where to connect
     * @param dst    {@link SockAddr#STORAGE_SIZE} bytes
     * @return the address length
     */
    abstract int writeRemoteAddress(SocketAddress remote, MemorySegment dst);

    // ------------------------------------------------------------------------------------------ the socket

    @Override
    String directDescriptorPlace() {
        return socket.description();
    }

    @Override
    void arrive(RingwireIoRegistration r, Runnable then, java.util.function.Consumer<Throwable> failed) {
        socket.arrive(r, then, failed);
    }

    @Override
    void closeSocket(int f) throws Exception {
        socket.close(f);
    }

    @Override
    void beforeCloseOffLoop(RingwireIoRegistration r) {
        socket.beforeCloseOffLoop(r);
    }

    @Override
    <T> T withFd(FdCall<T> call) throws NativeIoException {
        return socket.withFd(call);
    }

    @Override
    int getIntOption(int level, int name) throws NativeIoException {
        return socket.getIntOption(level, name);
    }

    @Override
    void setIntOption(int level, int name, int value) throws NativeIoException {
        socket.setIntOption(level, name, value);
    }

    @Override
    byte[] getBytesOption(int level, int name, int length) throws NativeIoException {
        return socket.getBytesOption(level, name, length);
    }

    @Override
    void setBytesOption(int level, int name, byte[] value) throws NativeIoException {
        socket.setBytesOption(level, name, value);
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
            socket.shutdown(SocketConstants.SHUT_WR, "shutdown(SHUT_WR)");
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
                socket.shutdown(SocketConstants.SHUT_RD, "shutdown(SHUT_RD)");
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
        StreamSocket s = socket;
        if (!active || inputShutdown || eofSeen || closingOffLoop || r == null || !r.isValid() || s.noSocketHere()) {
            return;
        }
        if (inFlight(READ_OWN_BUFFER | READ_MULTISHOT | READ_SINGLE)) {
            return; // its completion re-arms; one receive at a time, so the byte order holds
        }
        if (!config.isAutoRead() && !readPending) {
            return;
        }
        if (!reserveReadSqe(r)) {
            return; // nothing changed: prepareBeforeEnter() comes back here next iteration
        }
        if (readsFileDescriptors()) {
            descriptors().armRecv(r);
            return;
        }
        RingwireIoHandler h = r.handler();
        boolean ownBuffer = h.receiveBuffers().bufferRing() == null || config.isAutoRead() && bulk.on || ringDry;
        if (ownBuffer && armOwnBufferRecv(r)) {
            if (ringDry) {
                ringDry = false;
                h.counters().dryRingFallbacks++;
            }
        } else if (ownBuffer && h.receiveBuffers().bufferRing() == null) {
            throw new IllegalStateException("bufferRing is off, and the channel's allocator gives direct buffers "
                + "without a single native address to receive into: " + config.getAllocator());
        } else if (config.isAutoRead() && h.config().multishotRecv()) {
            long userData = r.nextUserData(IORING_OP_RECV, MULTISHOT);
            s.nameSlotOrFd(r, r.sq().prepRecvMultishot(fd, ReceiveBuffers.GROUP, 0, userData));
            started(READ_MULTISHOT);
        } else {
            long userData = r.nextUserData(IORING_OP_RECV, SINGLE);
            s.nameSlotOrFd(r, r.sq().prepRecvBufferSelect(fd, ReceiveBuffers.GROUP, 0, userData));
            started(READ_SINGLE);
        }
    }

    /**
     * One single-shot RECV into an allocator buffer (bulk mode, a dry ring, or no ring).
     *
     * @return false if the allocator's buffer has no single native address (nothing armed: use the ring)
     */
    private boolean armOwnBufferRecv(RingwireIoRegistration r) {
        RingwireIoHandler h = r.handler();
        RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
        BufferRing ring = h.receiveBuffers().bufferRing();
        int size = ring == null ? handle.guess() : Math.max(handle.guess(), 2 * ring.bufferSize());
        ByteBuf buf = config.getAllocator().directBuffer(size);
        long address = nativeAddress(buf, buf.writerIndex(), buf.writableBytes());
        if (address == 0) {
            buf.release();
            bulk.on = false;
            ringDry = false;
            return false;
        }
        long userData;
        try {
            userData = r.nextUserData(IORING_OP_RECV, OWN_BUFFER);
            socket.nameSlotOrFd(r, r.sq().prepRecv(fd, address, buf.writableBytes(), 0, userData));
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        ownBuffer = buf;
        started(READ_OWN_BUFFER);
        h.counters().directRecvs++;
        return true;
    }

    @Override
    byte readOpcode() {
        DescriptorPassing d = descriptors;
        return d != null && d.receiving() ? IORING_OP_RECVMSG : IORING_OP_RECV;
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

    /** @return bytes received and held for the next read() (autoRead off, or between loops); on the loop only */
    int pendingInputBytes() {
        return pendingInput == null ? 0 : pendingInput.readableBytes();
    }

    @Override
    void joined(RingwireIoRegistration r) {
        socket.joined(r);
        readPaused(); // an accepted connection with autoRead off: no read() may ever come to see the peer close
    }

    @Override
    void readPaused() {
        ((StreamUnsafe) unsafe()).watchForPeerCloseIfPaused();
    }

    @Override
    void leaving(RingwireIoRegistration r) {
        socket.leaving(r);
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
            if (files != null) {
                files.closed(inFlight(WRITE));
            }
            if (descriptors != null) {
                descriptors.closed();
            }
            if (pendingInput != null) {
                pendingInput.release();
                pendingInput = null;
            }
            bulk.releaseHeldAfterInlineWrite();
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

    /** One POLL_ADD for POLLOUT, in place of the write, whose completion writes again; the SQE is reserved. */
    void armWritePoll(RingwireIoRegistration r) {
        socket.nameSlot(r, r.sq().prepPollAdd(fd, SocketConstants.POLLOUT, false,
            r.nextUserData(IORING_OP_POLL_ADD, WRITE_POLL)));
        startedWrite(IORING_OP_POLL_ADD, WRITE_POLL);
    }

    // ------------------------------------------------------------------------------------------ the handle

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new StreamUnsafe();
    }

    /** @return this channel's handle, for the features kept in classes of their own */
    final StreamUnsafe streamUnsafe() {
        return (StreamUnsafe) unsafe();
    }

    final class StreamUnsafe extends RingwireUnsafe {
        /*
         * A receive from the shared ring is entered through a method handle in a field that is not final, so C2
         * cannot fold it into a constant and compiles the receive on its own: called directly, it was inlined with
         * the pipeline behind it into the completion dispatch, one compilation too large for C2's inlining budget,
         * made several times over, whose compiler memory stayed resident. Own-buffer receives (bulk streams) and
         * write completions are still called directly: there the frame decoder's compilations are the largest
         * either way.
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
            // the promise stays cancellable, as in Netty's epoll and io_uring transports (ConnectAttempt)
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
                ConnectAttempt.start(AbstractRingwireStreamChannel.this, remote, promise);
            } catch (Throwable t) {
                connectFailed(promise, t, remote);
            }
        }

        /** Fails a connect's promise with {@code cause}, which names the address as Netty's transports do. */
        void connectFailed(ChannelPromise promise, Throwable cause, SocketAddress remote) {
            promise.tryFailure(annotateConnectException(cause, remote));
            closeIfClosed();
        }

        @Override
        public void complete(byte opcode, int res, int flags, int data) {
            switch (opcode) {
                case IORING_OP_RECV -> {
                    if (data == OWN_BUFFER) {
                        ownBufferRecvComplete(res, flags);
                    } else {
                        recvCompleteApart(res, flags, data);
                    }
                }
                case IORING_OP_SEND -> writeComplete(res);
                case IORING_OP_SENDMSG -> {
                    if (data == DescriptorPassing.DESCRIPTOR) {
                        descriptors.sendComplete(res);
                    } else {
                        writeComplete(res);
                    }
                }
                case IORING_OP_RECVMSG -> descriptors.recvComplete(res, flags);
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
            ConnectAttempt attempt = connecting;
            connecting = null;
            if (attempt != null) {
                attempt.complete(res);
            }
        }

        // ---------------------------------------------------------------- recv

        /**
         * Reading is paused but the peer may still close: watch for its FIN, as epoll's EPOLLRDHUP does, so
         * half-closure is seen without a read() (one POLL_ADD per paused connection, none while reading).
         */
        void watchForPeerCloseIfPaused() {
            RingwireIoRegistration r = registration;
            if (inFlight(PEER_CLOSE_WATCH | READ_MULTISHOT | READ_SINGLE | READ_OWN_BUFFER)
                || config.isAutoRead() || readPending || eofSeen || closingOffLoop
                || inputShutdown || !active || socket.noSocketHere() || r == null || !r.isValid()) {
                return;
            }
            if (!reserveReadSqe(r)) {
                return;
            }
            socket.nameSlot(r, r.sq().prepPollAdd(fd, SocketConstants.POLLRDHUP, false,
                r.nextUserData(IORING_OP_POLL_ADD, 0)));
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
                    bulk.watch(r, res, flags, buffers.bufferSize(), data == MULTISHOT);
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

        /** An own-buffer receive completed: its bytes are already in {@link #ownBuffer}, which goes up the pipeline. */
        private void ownBufferRecvComplete(int res, int flags) {
            readCompleted(OWN_BUFFER, flags);
            moreWaiting = (flags & IORING_CQE_F_SOCK_NONEMPTY) != 0;
            ByteBuf buf = ownBuffer;
            ownBuffer = null;
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
                bulk.ownBufferReceived(res, moreWaiting, h.receiveBuffers().bufferRing());
            }
            recvNeedsRearm = true;
            if (readLoopGoesOn) {
                armRecv();
                if (inFlight(READ_OWN_BUFFER) || armRetry) {
                    recvNeedsRearm = false;
                    return; // channelReadComplete when the loop ends
                }
            }
            readDone(r, true);
        }

        /**
         * A receive's bytes went up the pipeline. When no more of this connection's bytes can be in this batch of
         * completions ({@code last}: an own-buffer receive, or one that left the socket empty), channelReadComplete
         * follows at once, and with it the echo's flush and gather, while the received and written buffers are in
         * the CPU's cache; after the whole batch (the lab's rpc-backend: 32 connections × 64 KiB) they are not.
         * Otherwise it follows the batch, once for all of this connection's receives in it.
         */
        void readDone(RingwireIoRegistration r, boolean last) {
            bulk.releaseHeldAfterInlineWrite(); // this receive's bytes have met the frames the last inline write sent
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
                // not the guess's 2 KiB.
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
        RecvByteBufAllocator.ExtendedHandle batchHandle() {
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
        void countRead(RecvByteBufAllocator.ExtendedHandle handle, int n) {
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
                // in flight when it tries): that grew without bound, copied at each growth. When the socket was
                // drained the read most likely ended on a message boundary, the SEND goes first, and the next read
                // finds the echo's buffers already released.
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
                    socket.shutdownAfterEof(registration);
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
            if (bulk.inlineUnsettled > 0) {
                bulk.settleInlineWrite(in); // closed by a listener of an inline write's buffers: the rest was sent too
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
            int res = socket.sendNow(registration.handler(), registration.handler().writeGather().msghdrSegment());
            if (res > 0) {
                WriteGather.removeWritten(in, res);
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
            if (files != null && files.hasChunk() || !writeInFlightSendsBuffers()) {
                return false;
            }
            int res = writeResultPosted();
            if (res < 0) {
                return false; // not posted yet (or an error, which its own turn reports)
            }
            writeSettledAhead = true;
            WriteGather.removeWritten(in, res);
            return true;
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
                descriptors().send(r, in, passed);
            } else {
                files().write(r, in, (FileRegion) current);
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
            StreamSocket s = socket;
            if (inFlight(WRITE) || in == null || in.isEmpty() || s.noSocketHere() || !active || closingOffLoop) {
                return;
            }
            RingwireIoRegistration r = registration;
            if (bulk.inlineUnsettled > 0) {
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
            if (bulk.on && inReadComplete && !zeroCopyFor(g.bytes(), r.handler())) {
                if (bulk.writeInline(r.handler(), in, iovecs)) {
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
                s.nameSlotOrFd(r, q.prepSend(fd, g.firstAddress(), g.firstLength(), SocketConstants.MSG_NOSIGNAL,
                    r.nextUserData(IORING_OP_SEND, 0)));
                startedWrite(IORING_OP_SEND);
            } else {
                s.nameSlotOrFd(r, q.prepSendmsg(fd, g.msghdr(), SocketConstants.MSG_NOSIGNAL,
                    r.nextUserData(IORING_OP_SENDMSG, 0)));
                startedWrite(IORING_OP_SENDMSG);
            }
            RingwireCounters c = r.handler().counters();
            c.writes++;
            c.writeIovecs += iovecs;
        }

        private boolean zeroCopyFor(long bytes, RingwireIoHandler h) {
            int threshold = sendZcThreshold();
            ZeroCopySends z = zeroCopy;
            return threshold > 0 && bytes >= threshold && h.zeroCopyAvailable()
                && (z == null || !z.off && z.pending < ZeroCopySends.SLOTS);
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

        /** {@link #handleWriteError} for the features kept in classes of their own. */
        void writeFailed(Throwable cause) {
            handleWriteError(cause);
        }

        private void writeComplete(int res) {
            ChannelOutboundBuffer in = outboundBuffer();
            boolean settled = writeSettledAhead;
            writeSettledAhead = false;
            if (res >= 0) {
                registration.handler().counters().writeBytes += res;
                boolean fileChunk = files != null && files.hasChunk();
                if (!fileChunk && in != null && !settled) {
                    // the written buffers leave while the write still counts as in flight: a promise's listener
                    // that closes the channel in here makes the close hold what is left for the kernel, not
                    // write the same bytes again (Vert.x's HTTP client closing after its last chunk sent it twice)
                    WriteGather.removeWritten(in, res);
                }
                ended(WRITE);
                releaseHeldForKernel();
                if (fileChunk) {
                    files.sent(in, res);
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
            if (files != null) {
                files.releaseChunk();
            }
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
    }
}
