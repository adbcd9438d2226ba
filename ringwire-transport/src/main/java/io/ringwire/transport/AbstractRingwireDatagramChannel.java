package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.RawMemory;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.SubmissionQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.NotYetConnectedException;

import static io.ringwire.uring.IoUringConstants.IORING_OP_POLL_ADD;
import static io.ringwire.uring.IoUringConstants.IORING_OP_RECVMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What Ringwire's datagram channels share, whatever their addresses (UDP, Unix domain datagrams).
 *
 * <p><b>Receives</b>: one multishot RECVMSG [6.0] from the loop's shared buffer ring; each CQE carries one datagram
 * with its sender ({@code io_uring_recvmsg_out}, name, payload in one ring buffer), so a single enter can bring many
 * datagrams (Netty's io_uring transport issues a batch of single-shot RECVMSGs instead). When the channel's
 * {@link io.netty.channel.RecvByteBufAllocator} asks for more room than a ring buffer has, with autoRead off, or when
 * the ring ran dry, a single-shot RECVMSG goes straight into a buffer from the channel's allocator. A datagram too big
 * for the room it got is dropped and reported with a {@link DatagramTruncatedException}, never delivered cut.
 *
 * <p><b>Sends</b>: just before the loop's enter, each flushed datagram (up to {@value #MAX_SENDS}) becomes one
 * SENDMSG, so they are in flight together and leave in that one enter; their buffers are released, and their
 * promises completed in order, when the last of the batch has completed.
 *
 * @param <A> the channel's address type
 */
abstract class AbstractRingwireDatagramChannel<A extends SocketAddress> extends AbstractRingwireChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(true, 16);
    /** Flushed datagrams sent in one batch (one SENDMSG each). */
    static final int MAX_SENDS = 64;
    private static final int MSGHDR_SIZE = 56;
    /** struct io_uring_recvmsg_out { u32 namelen, controllen, payloadlen, flags; } */
    private static final int RECVMSG_OUT_SIZE = 16;
    /** struct cmsghdr { size_t cmsg_len; int cmsg_level, cmsg_type; }, then the data, padded to 8. */
    private static final int CMSG_HDR = 16;
    /** CMSG_SPACE of a u16 (UDP_SEGMENT) and of an int (UDP_GRO). */
    private static final int CMSG_SPACE_2 = CMSG_HDR + 8;
    private static final int CMSG_SPACE_4 = CMSG_HDR + 8;
    /** CMSG_SPACE of a sockaddr_in6 (IPV6_ORIGDSTADDR; IP_ORIGDSTADDR's sockaddr_in takes less). */
    private static final int CMSG_SPACE_SOCKADDR = CMSG_HDR + 32;

    /*
     * Native memory of this channel's own, for as long as a receive may use it (the kernel writes the sender's
     * address of an own-buffer RECVMSG at completion): the multishot msghdr template, the own-buffer msghdr, its
     * sockaddr and its iovec.
     */
    private static final int MULTISHOT_HDR = 0;
    private static final int OWN_HDR = MULTISHOT_HDR + MSGHDR_SIZE;
    private static final int OWN_NAME = OWN_HDR + MSGHDR_SIZE;
    private static final int OWN_IOV = OWN_NAME + SockAddr.STORAGE_SIZE;
    /** The own-buffer RECVMSG's control buffer: room for a UDP_GRO message (an int) and an original destination. */
    private static final int OWN_CONTROL = OWN_IOV + 16;
    private static final int CONTROL_ROOM = CMSG_SPACE_4 + CMSG_SPACE_SOCKADDR;
    private static final int NATIVE_SIZE = OWN_CONTROL + CONTROL_ROOM;

    /** Room for the sender's address in each ring buffer (the largest address of the channel's family). */
    private final int nameRoom;
    private final MemorySegment nativeArea = Arena.ofAuto().allocate(NATIVE_SIZE, 8);
    private volatile boolean connected;

    /** The buffer the in-flight own-buffer RECVMSG writes into; the channel owns it until the CQE. */
    private ByteBuf ownBuffer;
    private boolean readInBatch;
    private boolean recvNeedsRearm;
    private boolean ringDry;

    /** Sends of the batch in flight, one bit per slot (the slot is the SQE's user_data data). */
    private long sendsInFlight;
    private int sendsInBatch;
    private final int[] sendResults = new int[MAX_SENDS];
    /** The batch's first datagrams, settled by a close from their CQEs seen ahead of their turn. */
    private int sendsSettledAhead;
    /**
     * The UDP_SEGMENT control message of each send slot, made at the first segmented send. The kernel copies a
     * SENDMSG's msghdr, address and iovecs when it takes the SQE, but reads {@code msg_control} from this memory each
     * time it issues the send, and a send that met EAGAIN is issued again once there is room, iterations later, when
     * the loop's scratch space holds other sends' bytes: so the message lives here, untouched until the slot's CQE.
     */
    private MemorySegment sendControls;

    /**
     * @param fd       the datagram socket
     * @param nameRoom bytes for a sender's address in each ring buffer: its family's largest sockaddr
     */
    AbstractRingwireDatagramChannel(int fd, int nameRoom) {
        super(null, fd, false);
        this.nameRoom = nameRoom;
        // the multishot RECVMSG's msghdr template: room for a sender's address in each ring buffer, no control,
        // no iovecs
        nativeArea.set(JAVA_INT, MULTISHOT_HDR + 8, nameRoom);
    }

    /** @return the sockaddr of {@code length} bytes at {@code at} in {@code seg} as the channel's address type */
    abstract A sender(MemorySegment seg, long at, int length);

    /** Writes a recipient's sockaddr into {@code dst}; @return its length */
    abstract int writeRecipient(SocketAddress recipient, MemorySegment dst);

    /**
     * @param recipient where the datagram was sent (IP_RECVORIGDSTADDR), or null: the channel's local address
     * @return a received datagram as the pipeline gets it (DatagramPacket, DomainDatagramPacket)
     */
    abstract Object packet(ByteBuf content, A sender, A recipient);

    /** @return whether the channel counts as active once registered (DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION) */
    abstract boolean activeOnOpen();

    /** @return whether {@code recipient} is an address of the channel's type (checked before the write is taken) */
    abstract boolean isRecipient(SocketAddress recipient);

    /** @return the packet type to say in an error about a message the channel cannot write */
    abstract String messageTypes();

    /**
     * @return whether receives need control messages (UDP_GRO: the kernel may hand several datagrams to one receive;
     *         IP_RECVORIGDSTADDR: each datagram's original destination), so go into the allocator's buffers with a
     *         control buffer rather than through the ring
     */
    boolean receivesWithControl() {
        return false;
    }

    /** @return the largest datagram the channel expects, or 0: its RecvByteBufAllocator's size */
    int maxDatagramPayloadSize() {
        return 0;
    }

    /**
     * UDP_GRO or IP_RECVORIGDSTADDR went on: a multishot RECVMSG armed before would take the kernel's batches into
     * ring buffers too small for them, without control messages, so it is cancelled, and the receive armed after its
     * last completion goes into the allocator's buffers. Hops to the event loop when called from another thread.
     */
    final void rearmReceive() {
        if (isRegistered() && !eventLoop().inEventLoop()) {
            eventLoop().execute(this::rearmReceive);
            return;
        }
        RingwireIoRegistration r = registration;
        if (inFlight(READ_MULTISHOT) && r != null && r.isValid()) {
            cancel(r, readOpcode(), MULTISHOT);
        }
    }

    /**
     * @param recipient where the datagram went
     * @return the error of a send the kernel refused with ECONNREFUSED: for UDP, an ICMP port unreachable that an
     *         earlier datagram of the connected channel brought back
     */
    Throwable sendRefused(SocketAddress recipient) {
        return new PortUnreachableException("sendmsg: " + Errno.name(Errno.ECONNREFUSED) + " (an earlier datagram to "
            + recipient + " found no socket on that port)");
    }

    /** @return the segment size of a datagram to be cut into segments by the kernel (UDP GSO), or 0 */
    int segmentSize(Object msg) {
        return 0;
    }

    /**
     * @return whether a batch's sends go as one linked chain that stops at a full peer: each with MSG_DONTWAIT, so a
     *         send the peer has no room for completes with EAGAIN, the rest of the chain is cancelled, and the batch
     *         goes again from there once POLLOUT says there is room. For sockets that copy a datagram before they
     *         find the peer's queue full (AF_UNIX): io_uring's own retry after EAGAIN resends from where that copy
     *         left the iovecs, and the peer gets an empty datagram (seen on Linux 6.18). It also keeps the order.
     *         Such a batch is never longer than the SQ has room for, so it leaves in one enter as one chain.
     */
    boolean linkedSends() {
        return false;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    /** Bound or connected, or registered with {@code DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION} (it can send). */
    @Override
    public boolean isActive() {
        return isOpen() && (active || activeOnOpen() && isRegistered());
    }

    /** @return whether the channel is connected to one peer */
    public boolean isConnected() {
        return connected;
    }

    @Override
    byte readOpcode() {
        return IORING_OP_RECVMSG;
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        super.doBind(localAddress);
        active = true;
    }

    private void doConnect(SocketAddress remote, SocketAddress local) throws Exception {
        if (local != null) {
            doBind(local);
        }
        checkResolvable(remote);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8);
            int len = writeRecipient(remote, sa);
            int res = Libc.connect(fd, sa, len);
            java.io.FileNotFoundException missing = noSocketAt(res, remote);
            if (missing != null) {
                throw missing;
            }
            NativeIoException.check(res, "connect " + remote);
        }
        connected = true;
        active = true;
        resetLocalAddress();
        cacheRemoteAddress(remote);
    }

    /** Dissolves the association: connect(2) to AF_UNSPEC. The channel stays open and bound. */
    @Override
    protected void doDisconnect() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8); // zeroed: sa_family AF_UNSPEC
            NativeIoException.check(Libc.connect(fd, sa, SockAddr.IN6_SIZE), "disconnect");
        }
        connected = false;
        cacheRemoteAddress(null);
        resetLocalAddress();
    }

    @Override
    protected void doClose() throws Exception {
        connected = false;
        super.doClose();
    }

    // ------------------------------------------------------------------------------------------ receiving

    @Override
    protected void doBeginRead() {
        readPending = true;
        armRecv();
    }

    private void armRecv() {
        RingwireIoRegistration r = registration;
        if (!isActive() || closingOffLoop || r == null || !r.isValid() || fd < 0
            || inFlight(READ_MULTISHOT | READ_OWN_BUFFER) || !config().isAutoRead() && !readPending) {
            return;
        }
        if (!reserveReadSqe(r)) {
            return; // nothing changed: prepareBeforeEnter() comes back here next iteration
        }
        RingwireIoHandler h = r.handler();
        BufferRing ring = h.receiveBuffers().bufferRing();
        int room = ring == null ? 0 : ring.bufferSize() - RECVMSG_OUT_SIZE - nameRoom;
        int largest = maxDatagramPayloadSize();
        // GRO's batches of up to 64 KiB go into the allocator's buffers (a ring buffer would cut them), and so do
        // receives that bring control messages
        boolean ringFits = ring != null && !ring.isIncremental() && !receivesWithControl()
            && room >= (largest > 0 ? largest : unsafe().recvBufAllocHandle().guess());
        if (ringFits && !ringDry && config().isAutoRead() && h.config().multishotRecv()) {
            long hdr = nativeArea.address() + MULTISHOT_HDR;
            // MSG_TRUNC: io_uring_recvmsg_out.payloadlen then says a cut datagram's real length
            r.sq().prepRecvmsgMultishot(fd, hdr, SocketConstants.MSG_TRUNC, ReceiveBuffers.GROUP,
                r.nextUserData(IORING_OP_RECVMSG, MULTISHOT));
            started(READ_MULTISHOT);
            return;
        }
        if (ringDry) {
            ringDry = false;
            h.counters().dryRingFallbacks++;
        }
        armOwnBufferRecv(r);
    }

    /** One single-shot RECVMSG into a buffer from the channel's allocator, sized by its RecvByteBufAllocator. */
    private void armOwnBufferRecv(RingwireIoRegistration r) {
        ByteBuf buf = unsafe().recvBufAllocHandle().allocate(config().getAllocator());
        if (!buf.isDirect() || nativeAddress(buf, buf.writerIndex(), buf.writableBytes()) == 0) {
            ByteBuf direct = config().getAllocator().directBuffer(buf.writableBytes());
            buf.release();
            buf = direct;
        }
        long address = nativeAddress(buf, buf.writerIndex(), buf.writableBytes());
        MemorySegment n = nativeArea;
        long base = n.address();
        n.asSlice(OWN_HDR, MSGHDR_SIZE + SockAddr.STORAGE_SIZE).fill((byte) 0);
        n.asSlice(OWN_CONTROL, CONTROL_ROOM).fill((byte) 0);
        n.set(JAVA_LONG, OWN_HDR, base + OWN_NAME);             // msg_name
        n.set(JAVA_INT, OWN_HDR + 8, SockAddr.STORAGE_SIZE);    // msg_namelen
        n.set(JAVA_LONG, OWN_HDR + 16, base + OWN_IOV);         // msg_iov
        n.set(JAVA_LONG, OWN_HDR + 24, 1);                      // msg_iovlen
        if (receivesWithControl()) {
            n.set(JAVA_LONG, OWN_HDR + 32, base + OWN_CONTROL); // msg_control: segment size, destination
            n.set(JAVA_LONG, OWN_HDR + 40, CONTROL_ROOM);       // msg_controllen
        }
        n.set(JAVA_LONG, OWN_IOV, address);
        n.set(JAVA_LONG, OWN_IOV + 8, buf.writableBytes());
        try {
            // MSG_TRUNC: the completion says the datagram's real length, so a cut one is recognised
            r.sq().prepRecvmsg(fd, base + OWN_HDR, SocketConstants.MSG_TRUNC,
                r.nextUserData(IORING_OP_RECVMSG, OWN_BUFFER));
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        ownBuffer = buf;
        started(READ_OWN_BUFFER);
        r.handler().counters().directRecvs++;
    }

    /**
     * Finds a control message the own-buffer RECVMSG brought. The control buffer is zeroed before each receive, so the
     * messages end at the first cmsg_len of 0 (or at the buffer's end).
     *
     * @return the offset in {@code n} of the message's data, or -1
     */
    private static int controlMessage(MemorySegment n, int level, int type) {
        int at = OWN_CONTROL;
        while (at + CMSG_HDR <= OWN_CONTROL + CONTROL_ROOM) {
            long length = n.get(JAVA_LONG, at);                  // cmsg_len
            if (length < CMSG_HDR || at + length > OWN_CONTROL + CONTROL_ROOM) {
                return -1;
            }
            if (n.get(JAVA_INT, at + 8) == level && n.get(JAVA_INT, at + 12) == type) {
                return at + CMSG_HDR;
            }
            at += (int) ((length + 7) & ~7L);                    // CMSG_ALIGN
        }
        return -1;
    }

    /** @return the segment size of a UDP_GRO batch the own-buffer RECVMSG brought, or 0 */
    private static int groSegmentSize(MemorySegment n) {
        int at = controlMessage(n, SocketConstants.IPPROTO_UDP, SocketConstants.UDP_GRO);
        return at < 0 ? 0 : n.get(JAVA_INT, at);
    }

    /** @return the original destination (IP_ORIGDSTADDR or IPV6_ORIGDSTADDR) the own-buffer RECVMSG brought, or null */
    private A originalDestination(MemorySegment n) {
        int at = controlMessage(n, SocketConstants.IPPROTO_IP, SocketConstants.IP_RECVORIGDSTADDR);
        int room = SockAddr.IN_SIZE;
        if (at < 0) {
            at = controlMessage(n, SocketConstants.IPPROTO_IPV6, SocketConstants.IPV6_RECVORIGDSTADDR);
            room = SockAddr.IN6_SIZE;
        }
        return at < 0 ? null : sender(n, at, Math.min(room, (int) n.get(JAVA_LONG, at - CMSG_HDR) - CMSG_HDR));
    }

    // ------------------------------------------------------------------------------------------ sending

    /**
     * Takes an {@link AddressedEnvelope} of a ByteBuf for a recipient of the channel's type (its content made direct
     * if it is not), or, when connected, a bare ByteBuf.
     */
    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf buf) {
            if (!connected) {
                throw new NotYetConnectedException();
            }
            return toDirect(buf, alloc());
        }
        if (msg instanceof AddressedEnvelope<?, ?> e && e.content() instanceof ByteBuf content
            && (e.recipient() == null || isRecipient(e.recipient()))) {
            if (e.recipient() == null && !connected) {
                throw new NotYetConnectedException();
            }
            checkRecipient(e.recipient());
            int segment = segmentSize(msg);
            if (segment > 65_535) {
                throw new IllegalArgumentException("segment size " + segment + " above 65535 (UDP_SEGMENT takes a "
                    + "16-bit size)");
            }
            return content.isDirect() ? e : envelope(e, toDirect(content, alloc()));
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
            + " (" + getClass().getSimpleName() + " writes " + messageTypes() + ", or ByteBuf when connected)");
    }

    /** Refuses a recipient the kernel could not take (an unresolved host name). */
    void checkRecipient(SocketAddress recipient) {
    }

    /** @return the envelope {@code e} with the content {@code direct} instead of its own (released) */
    abstract AddressedEnvelope<ByteBuf, ? extends SocketAddress> envelope(AddressedEnvelope<?, ?> e, ByteBuf direct);

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        if (sendsInBatch == 0 && registration != null) {
            registration.prepareBeforeEnter(); // one SENDMSG per datagram, just before the loop's enter
        }
    }

    @Override
    void cancelMoreInFlight(RingwireIoRegistration r) {
        long sends = sendsInFlight;
        for (int slot = 0; sends != 0; slot++, sends >>>= 1) {
            if ((sends & 1) != 0) {
                cancel(r, IORING_OP_SENDMSG, slot);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ the handle

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new DatagramUnsafe();
    }

    private final class DatagramUnsafe extends RingwireUnsafe implements ChannelOutboundBuffer.MessageProcessor {
        /** The batch being prepared. */
        private int preparing;
        private RingwireIoRegistration preparingFor;
        /** The batch's last SQE so far, linked to the next one when there is a next ({@link #linkedSends()}). */
        private long lastSendSqe;

        @Override
        public void connect(SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            try {
                boolean wasActive = isActive();
                doConnect(remote, local);
                boolean promiseSet = promise.trySuccess();
                if (!wasActive && isActive()) {
                    pipeline().fireChannelActive();
                }
                if (!promiseSet) {
                    close(voidPromise());
                }
            } catch (Throwable t) {
                promise.tryFailure(annotateConnectException(t, remote));
                closeIfClosed();
            }
        }

        @Override
        public void complete(byte opcode, int res, int flags, int data) {
            if (opcode == IORING_OP_RECVMSG) {
                if (data == OWN_BUFFER) {
                    ownBufferRecvComplete(res);
                } else {
                    multishotRecvComplete(res, flags);
                }
            } else if (opcode == IORING_OP_SENDMSG) {
                sendComplete(data, res);
            } else if (opcode == IORING_OP_POLL_ADD) {
                roomForSends(res);
            } // else our own ASYNC_CANCELs
        }

        private void multishotRecvComplete(int res, int flags) {
            if (readCompleted(MULTISHOT, flags)) {
                recvNeedsRearm = true;
            }
            RingwireIoRegistration r = registration;
            RingwireIoHandler h = r.handler();
            if (res >= 0 && IoUringCqe.hasBuffer(flags)) {
                BufferRing buffers = h.receiveBuffers().bufferRing();
                int bid = IoUringCqe.bufferId(flags);
                try {
                    MemorySegment ring = buffers.segment();
                    long at = buffers.address(bid) + buffers.dataOffset(bid) - ring.address();
                    int namelen = ring.get(JAVA_INT, at);
                    int payloadLength = ring.get(JAVA_INT, at + 8);
                    int msgFlags = ring.get(JAVA_INT, at + 12);
                    int room = res - RECVMSG_OUT_SIZE - nameRoom;
                    A sender = sender(ring, at + RECVMSG_OUT_SIZE, Math.min(namelen, nameRoom));
                    if ((msgFlags & SocketConstants.MSG_TRUNC) != 0 || payloadLength > room) {
                        truncated(payloadLength, Math.max(room, 0), sender);
                    } else {
                        int payloadOffset = buffers.dataOffset(bid) + RECVMSG_OUT_SIZE + nameRoom;
                        ByteBuf buf = config().getAllocator().directBuffer(payloadLength);
                        copy(h.receiveBuffers().view(bid, payloadOffset, payloadLength), buffers.address(bid), buf,
                            payloadLength);
                        received(buf, sender, null);
                    }
                } finally {
                    buffers.release(bid, res, flags);
                }
            } else if (res == -Errno.ENOBUFS) {
                // grown: the ring again; at its largest: a buffer of the channel's own
                ringDry = !h.receiveBuffers().ranDry();
            } else if (res < 0) {
                recvError(res);
            }
            r.notifyAfterCompletions();
        }

        private void ownBufferRecvComplete(int res) {
            readCompleted(OWN_BUFFER, 0);
            recvNeedsRearm = true;
            ByteBuf buf = ownBuffer;
            ownBuffer = null;
            try {
                if (res >= 0 && isOpen()) {
                    MemorySegment n = nativeArea;
                    A sender = sender(n, OWN_NAME, Math.min(n.get(JAVA_INT, OWN_HDR + 8), SockAddr.STORAGE_SIZE));
                    if (res > buf.writableBytes()) {
                        truncated(res, buf.writableBytes(), sender);
                    } else {
                        buf.writerIndex(buf.writerIndex() + res);
                        int segment = groSegmentSize(n);
                        A recipient = originalDestination(n);
                        if (segment > 0 && res > segment) {
                            receivedSegments(buf, segment, sender, recipient);
                        } else {
                            received(buf, sender, recipient);
                            buf = null; // the pipeline owns it
                        }
                    }
                } else if (res < 0) {
                    recvError(res);
                }
            } finally {
                if (buf != null) {
                    buf.release();
                }
            }
            registration.notifyAfterCompletions();
        }

        private void received(ByteBuf buf, A sender, A recipient) {
            RingwireCounters c = registration.handler().counters();
            c.recvs++;
            c.recvBytes += buf.readableBytes();
            readInBatch = true;
            if (!config().isAutoRead()) {
                readPending = false; // this datagram answers the read()
            }
            pipeline().fireChannelRead(packet(buf, sender, recipient));
        }

        /**
         * A GRO batch: several datagrams of {@code segment} bytes (the last may be shorter) from one sender, passed up
         * one packet each, as slices of the receive's buffer (released by the caller).
         */
        private void receivedSegments(ByteBuf buf, int segment, A sender, A recipient) {
            registration.handler().counters().groBatches++;
            while (buf.isReadable() && isOpen()) {
                received(buf.readRetainedSlice(Math.min(segment, buf.readableBytes())), sender, recipient);
            }
        }

        private void truncated(int length, int room, SocketAddress sender) {
            pipeline().fireExceptionCaught(new DatagramTruncatedException(length, room, sender));
        }

        private void recvError(int res) {
            if (res == -Errno.ECANCELED || !isOpen()) {
                return;
            }
            if (res == -Errno.ECONNREFUSED) {
                // an ICMP port unreachable for an earlier send of this connected channel: reported, not fatal
                pipeline().fireExceptionCaught(new PortUnreachableException("recvmsg: " + Errno.name(res)
                    + " (the peer " + remoteAddress() + " has no socket on that port)"));
                return;
            }
            pipeline().fireExceptionCaught(new NativeIoException("recvmsg", res));
            close(voidPromise());
        }

        // ---------------------------------------------------------------- sending

        /** Called before the outbound buffer is failed: the kernel may still read the batch in flight. */
        @Override
        protected void close(ChannelPromise promise, Throwable cause, java.nio.channels.ClosedChannelException
            closeCause) {
            if (sendsInFlight == 0 && isOpen() && eventLoop().inEventLoop()) {
                sendFlushedNow();
            }
            if (eventLoop().inEventLoop()) {
                settleSendsPosted();
            }
            holdBatchForKernel();
            super.close(promise, cause, closeCause);
        }

        /**
         * The channel closes with datagrams flushed but not yet handed to the kernel (their SENDMSGs would be
         * prepared just before the loop's next enter): they go now, in order, each with one sendmsg(2), until the
         * socket refuses one (EAGAIN); what is left fails as closed. Netty's epoll sends them inside flush(), so a
         * datagram flushed just before close() is not dropped there either.
         */
        private void sendFlushedNow() {
            ChannelOutboundBuffer in = outboundBuffer();
            RingwireIoRegistration r = registration;
            if (in == null || r == null || fd < 0 || closingOffLoop) {
                return;
            }
            RingwireIoHandler h = r.handler();
            while (!in.isEmpty()) {
                int size = sendSize(in.current());
                if (size > h.scratch().remaining()) {
                    return;
                }
                long region = h.scratch().take(size);
                layOutSend(h, in.current(), region, -1);
                MemorySegment s = h.scratch().segment();
                int res = Libc.sendmsg(fd, s.asSlice(region - s.address(), MSGHDR_SIZE),
                    SocketConstants.MSG_NOSIGNAL | SocketConstants.MSG_DONTWAIT);
                h.scratch().giveBack(region, size, 0);
                if (res < 0) {
                    return;
                }
                h.counters().writes++;
                h.counters().writeBytes += res;
                in.remove();
            }
        }

        private void holdBatchForKernel() {
            if (sendsInFlight != 0 && sendsInBatch > sendsSettledAhead) {
                holdForKernel(outboundBuffer(), sendsInBatch - sendsSettledAhead);
            }
        }

        /**
         * A close in the middle of a batch of completions, with sends of this channel in flight: those whose CQEs the
         * kernel has already posted, later in that batch, leave the outbound buffer now, in order, as their turn
         * would remove them (sent, or failed with their own error), instead of failing as closed; the first not
         * posted yet stops it, and it and the rest are held for the kernel.
         */
        private void settleSendsPosted() {
            ChannelOutboundBuffer in = outboundBuffer();
            RingwireIoRegistration r = registration;
            if (in == null || r == null || sendsInFlight == 0) {
                return;
            }
            for (int i = sendsSettledAhead; i < sendsInBatch && !in.isEmpty(); i++) {
                int res = (sendsInFlight & (1L << i)) == 0 ? sendResults[i]
                    : r.handler().postedResult(r.userData(IORING_OP_SENDMSG, i));
                if (res == Integer.MIN_VALUE) {
                    return;
                }
                sendsSettledAhead = i + 1; // before the promise's listeners, which may close again
                if (res >= 0) {
                    r.handler().counters().writeBytes += res;
                    in.remove();
                } else {
                    in.remove(sendError(res, in.current()));
                }
            }
        }

        @Override
        public void prepareBeforeEnter() {
            if (armRetry) {
                armRetry = false;
                armRecv();
            }
            ChannelOutboundBuffer in = outboundBuffer();
            RingwireIoRegistration r = registration;
            if (sendsInBatch > 0 || inFlight(WRITE) || in == null || in.isEmpty() || fd < 0 || !isOpen()
                || closingOffLoop) {
                return;
            }
            preparing = 0;
            preparingFor = r;
            lastSendSqe = -1;
            try {
                in.forEachFlushedMessage(this);
            } catch (Exception e) {
                logger.debug("preparing datagrams failed", e);
            }
            if (preparing == 0 && !in.isEmpty() && r.isValid()) {
                r.retryNextIteration(); // the SQ was full: the datagrams wait in the outbound buffer
            }
            sendsInBatch = preparing;
        }

        /** One SENDMSG for one flushed datagram, its msghdr, address and iovecs in the loop's scratch space. */
        @Override
        public boolean processMessage(Object msg) {
            if (preparing == MAX_SENDS) {
                return false;
            }
            RingwireIoRegistration r = preparingFor;
            RingwireIoHandler h = r.handler();
            int size = sendSize(msg);
            boolean linked = linkedSends();
            if (linked && preparing > 0 && r.sq().remaining() == 0) {
                // a full SQ would be submitted to make room, and a chain cannot span two enters: its first part
                // would leave as a chain of its own, and the rest run whether or not that part met a full peer.
                // The batch ends here; the rest go once it has completed
                return false;
            }
            if (size > h.scratch().remaining() || !r.reserveSqe()) {
                return false; // next iteration
            }
            long region = h.scratch().take(size);
            int slot = preparing++;
            int iovecs = layOutSend(h, msg, region, slot);
            SubmissionQueue q = r.sq();
            long sqe = q.prepSendmsg(fd, region, SocketConstants.MSG_NOSIGNAL
                | (linked ? SocketConstants.MSG_DONTWAIT : 0), r.nextUserData(IORING_OP_SENDMSG, slot));
            if (linked) {
                if (lastSendSqe >= 0) {
                    q.addFlags(lastSendSqe, IoUringConstants.IOSQE_IO_LINK);
                }
                lastSendSqe = sqe;
            }
            sendsInFlight |= 1L << slot;
            RingwireCounters c = h.counters();
            c.writes++;
            c.writeIovecs += iovecs;
            return true;
        }

        private static ByteBuf content(Object msg) {
            return msg instanceof AddressedEnvelope<?, ?> e ? (ByteBuf) e.content() : (ByteBuf) msg;
        }

        /** @return the scratch bytes {@link #layOutSend} takes for {@code msg} */
        private static int sendSize(Object msg) {
            // at least as many iovecs as layOutSend writes: one for bytes in one piece of native memory, else one
            // per NIO view of the readable bytes (never more than the buffer's nioBufferCount)
            return MSGHDR_SIZE + SockAddr.STORAGE_SIZE + CMSG_SPACE_2 + 16 * Math.max(1, content(msg).nioBufferCount());
        }

        /**
         * Lays out the msghdr, address and iovecs of one flushed datagram at {@code region} ({@link #sendSize} bytes
         * of the loop's scratch space); its control message, if it has one, goes in {@code slot}'s place in
         * {@link #sendControls}, or for a sendmsg(2) made now ({@code slot} -1) in the region too.
         *
         * @return the iovecs
         */
        private int layOutSend(RingwireIoHandler h, Object msg, long region, int slot) {
            ByteBuf content = content(msg);
            SocketAddress recipient = msg instanceof AddressedEnvelope<?, ?> e ? e.recipient() : null;
            int readable = content.readableBytes();
            long single = nativeAddress(content, content.readerIndex(), readable);
            ByteBuffer[] parts = single != 0 || readable == 0 ? null : content.nioBuffers();
            int iovecs = parts == null ? 1 : parts.length;
            long name = region + MSGHDR_SIZE;
            long iov = name + SockAddr.STORAGE_SIZE + CMSG_SPACE_2;
            long control = 0;
            int nameLength = 0;
            if (recipient != null) {
                MemorySegment s = h.scratch().segment();
                nameLength = writeRecipient(recipient, s.asSlice(name - s.address(), SockAddr.STORAGE_SIZE));
            }
            // struct msghdr { name, namelen, iov, iovlen, control, controllen, flags }, every field set, in the
            // region reserved above (RawMemory, as WriteGather: no per-access checks)
            RawMemory.putLong(region, recipient == null ? 0 : name);
            RawMemory.putLong(region + 8, nameLength & 0xFFFFFFFFL); // namelen, padding
            RawMemory.putLong(region + 16, iov);
            RawMemory.putLong(region + 24, iovecs);
            int segment = segmentSize(msg);
            if (segment > 0) {
                if (slot < 0) {
                    control = name + SockAddr.STORAGE_SIZE;
                } else {
                    MemorySegment c = sendControls;
                    if (c == null) {
                        sendControls = c = Arena.ofAuto().allocate((long) MAX_SENDS * CMSG_SPACE_2, 8);
                    }
                    control = c.address() + (long) slot * CMSG_SPACE_2;
                }
                // one control message, UDP_SEGMENT: the kernel cuts the datagram into segments of this size (GSO)
                RawMemory.putLong(control, 18);                                  // cmsg_len: CMSG_LEN(2)
                RawMemory.putInt(control + 8, SocketConstants.IPPROTO_UDP);      // cmsg_level SOL_UDP
                RawMemory.putInt(control + 12, SocketConstants.UDP_SEGMENT);     // cmsg_type
                RawMemory.putLong(control + 16, segment & 0xFFFF);               // the u16, and padding
                h.counters().segmentedSends++;
            }
            RawMemory.putLong(region + 32, control);
            RawMemory.putLong(region + 40, segment > 0 ? CMSG_SPACE_2 : 0);
            RawMemory.putLong(region + 48, 0);
            if (parts == null) {
                RawMemory.putLong(iov, single);
                RawMemory.putLong(iov + 8, readable);
            } else {
                for (ByteBuffer part : parts) {
                    RawMemory.putLong(iov, MemorySegment.ofBuffer(part).address());
                    RawMemory.putLong(iov + 8, part.remaining());
                    iov += 16;
                }
            }
            return iovecs;
        }

        private void sendComplete(int slot, int res) {
            sendsInFlight &= ~(1L << slot);
            sendResults[slot] = res;
            if (sendsInFlight != 0) {
                return;
            }
            int n = sendsInBatch;
            int settled = sendsSettledAhead;
            sendsInBatch = 0;
            sendsSettledAhead = 0;
            releaseHeldForKernel();
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null) {
                return; // closed: the outbound buffer was failed already
            }
            RingwireCounters c = registration.handler().counters();
            boolean peerFull = false;
            for (int i = settled; i < n && !in.isEmpty(); i++) {
                int result = sendResults[i];
                if (result >= 0) {
                    c.writeBytes += result;
                    in.remove();
                } else if (linkedSends() && result == -Errno.EAGAIN) {
                    peerFull = true; // this one and the rest of the chain were not sent: they stay, in order
                    break;
                } else if (linkedSends() && result == -Errno.ECANCELED) {
                    // an earlier send of the chain failed (its own error went to its own promise): the kernel cut
                    // the chain there, so this one and the rest were never tried; they stay, in order, and go in
                    // the next batch (the channel is open: a close's cancels find the outbound buffer gone)
                    break;
                } else {
                    in.remove(sendError(result, in.current()));
                }
            }
            if (peerFull && isOpen()) {
                waitForRoom();
            } else if (!in.isEmpty()) {
                doWrite(in);
            }
        }

        /** One POLL_ADD for POLLOUT: the peer's queue was full; its completion sends the rest. */
        private void waitForRoom() {
            RingwireIoRegistration r = registration;
            if (r == null || !r.isValid() || !r.reserveSqe()) {
                if (r != null && r.isValid()) {
                    r.retryNextIteration(); // the SQ was full: sent again, from the outbound buffer, next time
                }
                return;
            }
            r.sq().prepPollAdd(fd, SocketConstants.POLLOUT, false, r.nextUserData(IORING_OP_POLL_ADD, 0));
            startedWrite(IORING_OP_POLL_ADD);
            r.handler().counters().sendWaits++;
        }

        private void roomForSends(int res) {
            ended(WRITE);
            ChannelOutboundBuffer in = outboundBuffer();
            if (res == -Errno.ECANCELED || !isOpen() || in == null) {
                return;
            }
            if (res < 0) {
                pipeline().fireExceptionCaught(new NativeIoException("poll for room to send", res));
                close(voidPromise());
                return;
            }
            if (!in.isEmpty()) {
                doWrite(in);
            }
        }

        /** @return the error a send of {@code msg} failed with, {@code res} its CQE's result */
        private Throwable sendError(int res, Object msg) {
            if (res == -Errno.ECONNREFUSED) {
                return sendRefused(msg instanceof AddressedEnvelope<?, ?> e && e.recipient() != null ? e.recipient()
                    : remoteAddress());
            }
            if (res == -Errno.ECANCELED) {
                return new java.nio.channels.ClosedChannelException();
            }
            if (res == -Errno.ENOENT) {
                // a Unix domain datagram to a path with no socket: the recipient is the packet's, gone by now
                return new java.io.FileNotFoundException("sendmsg: no socket at the recipient's path (ENOENT)");
            }
            return new NativeIoException("sendmsg", res);
        }

        @Override
        public void afterCompletions() {
            ChannelPipeline p = pipeline();
            if (readInBatch) {
                readInBatch = false;
                recvBufAllocHandle().readComplete();
                p.fireChannelReadComplete();
            }
            if (recvNeedsRearm) {
                recvNeedsRearm = false;
                if (isOpen() && (config().isAutoRead() || readPending)) {
                    armRecv();
                }
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd=" + fd + ", " + localAddress()
            + (connected ? " -> " + remoteAddress() : "") + "]";
    }
}
