package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultAddressedEnvelope;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;
import io.ringwire.uring.SubmissionQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.NotYetConnectedException;

import static io.ringwire.uring.IoUringConstants.IORING_OP_RECVMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A UDP socket on io_uring.
 *
 * <p><b>Receives</b>: one multishot RECVMSG [6.0] from the loop's shared buffer ring; each CQE carries one datagram
 * with its sender ({@code io_uring_recvmsg_out}, name, payload in one ring buffer), so a single enter can bring many
 * datagrams (Netty's io_uring transport issues a batch of single-shot RECVMSGs instead). When the channel's
 * {@link io.netty.channel.RecvByteBufAllocator} asks for more room than a ring buffer has, with autoRead off, or when
 * the ring ran dry, a single-shot RECVMSG goes straight into a buffer from the channel's allocator. A datagram too big
 * for the room it got is dropped and reported with a {@link DatagramTruncatedException}, never delivered cut. An ICMP
 * port-unreachable on a connected channel arrives as {@link PortUnreachableException}; the channel stays open.
 *
 * <p><b>Sends</b>: just before the loop's enter, each flushed datagram (up to {@value #MAX_SENDS}) becomes one
 * SENDMSG, so they are in flight together and leave in that one enter; their buffers are released, and their
 * promises completed in order, when the last of the batch has completed.
 *
 * <p>Multicast: joining and leaving a group (any source) on an interface; source-specific membership and blocking
 * are not supported yet (their futures fail saying so).
 */
public final class RingwireDatagramChannel extends AbstractRingwireChannel implements DatagramChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(true, 16);
    /** Flushed datagrams sent in one batch (one SENDMSG each). */
    static final int MAX_SENDS = 64;
    private static final int MSGHDR_SIZE = 56;
    /** struct io_uring_recvmsg_out { u32 namelen, controllen, payloadlen, flags; } */
    private static final int RECVMSG_OUT_SIZE = 16;
    /** Room for the sender's address in each ring buffer: a sockaddr_in6. */
    private static final int NAME_ROOM = SockAddr.IN6_SIZE;

    /*
     * Native memory of this channel's own, for as long as a receive may use it (the kernel writes the sender's
     * address of a direct RECVMSG at completion): the multishot msghdr template, the direct msghdr, its sockaddr
     * and its iovec.
     */
    private static final int MULTISHOT_HDR = 0;
    private static final int DIRECT_HDR = MULTISHOT_HDR + MSGHDR_SIZE;
    private static final int DIRECT_NAME = DIRECT_HDR + MSGHDR_SIZE;
    private static final int DIRECT_IOV = DIRECT_NAME + SockAddr.STORAGE_SIZE;
    private static final int NATIVE_SIZE = DIRECT_IOV + 16;

    private final RingwireDatagramChannelConfig config;
    private final boolean ipv6;
    private final MemorySegment nativeArea = Arena.ofAuto().allocate(NATIVE_SIZE, 8);
    private volatile boolean connected;

    private final Senders senders = new Senders();
    private ByteBuf directBuf;
    private boolean readInBatch;
    private boolean recvNeedsRearm;
    private boolean ringDry;

    /** Sends of the batch in flight, one bit per slot (the slot is the SQE's user_data data). */
    private long sendsInFlight;
    private int sendsInBatch;
    private final int[] sendResults = new int[MAX_SENDS];

    /** A dual-stack socket when the host has IPv6, otherwise IPv4. */
    public RingwireDatagramChannel() {
        this(defaultFamily());
    }

    /**
     * @param family the address family to open the socket in
     */
    public RingwireDatagramChannel(InternetProtocolFamily family) {
        super(null, openSocket(inetFamily(family), SocketConstants.SOCK_DGRAM), false);
        this.ipv6 = family == InternetProtocolFamily.IPv6;
        this.config = new RingwireDatagramChannelConfig(this);
        // the multishot RECVMSG's msghdr template: room for a sockaddr_in6 in each ring buffer, no control, no iovecs
        nativeArea.set(JAVA_INT, MULTISHOT_HDR + 8, NAME_ROOM);
    }

    /**
     * @param family {@code INET} or {@code INET6} (Netty 4.2's name for the address family)
     */
    public RingwireDatagramChannel(io.netty.channel.socket.SocketProtocolFamily family) {
        this(switch (family) {
            case INET -> InternetProtocolFamily.IPv4;
            case INET6 -> InternetProtocolFamily.IPv6;
            default -> throw new IllegalArgumentException("a UDP socket is INET or INET6, not " + family);
        });
    }

    boolean isIpv6() {
        return ipv6;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public RingwireDatagramChannelConfig config() {
        return config;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    /** Bound or connected, or registered with {@code DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION} (it can send). */
    @Override
    public boolean isActive() {
        return isOpen() && (active || config.isActiveOnOpen() && isRegistered());
    }

    @Override
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
            int len = SockAddr.write(remote, sa, ipv6);
            NativeIoException.check(Libc.connect(fd, sa, len), "connect " + remote);
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
            || inFlight(READ_MULTISHOT | READ_DIRECT) || !config.isAutoRead() && !readPending) {
            return;
        }
        if (!reserveReadSqe(r)) {
            return; // nothing changed: prepareBeforeEnter() comes back here next iteration
        }
        RingwireIoHandler h = r.handler();
        BufferRing ring = h.recvBuffers();
        int room = ring == null ? 0 : ring.bufferSize() - RECVMSG_OUT_SIZE - NAME_ROOM;
        boolean ringFits = ring != null && !ring.isIncremental() && room >= unsafe().recvBufAllocHandle().guess();
        if (ringFits && !ringDry && config.isAutoRead() && h.config().multishotRecv()) {
            long hdr = nativeArea.address() + MULTISHOT_HDR;
            // MSG_TRUNC: io_uring_recvmsg_out.payloadlen then says a cut datagram's real length
            r.sq().prepRecvmsgMultishot(fd, hdr, SocketConstants.MSG_TRUNC, RingwireIoHandler.RECV_BUFFER_GROUP,
                r.nextUserData(IORING_OP_RECVMSG, MULTISHOT));
            started(READ_MULTISHOT);
            return;
        }
        if (ringDry) {
            ringDry = false;
            h.counters().dryRingFallbacks++;
        }
        armDirectRecv(r);
    }

    /** One single-shot RECVMSG into a buffer from the channel's allocator, sized by its RecvByteBufAllocator. */
    private void armDirectRecv(RingwireIoRegistration r) {
        ByteBuf buf = unsafe().recvBufAllocHandle().allocate(config.getAllocator());
        if (!buf.isDirect() || nativeAddress(buf, buf.writerIndex(), buf.writableBytes()) == 0) {
            ByteBuf direct = config.getAllocator().directBuffer(buf.writableBytes());
            buf.release();
            buf = direct;
        }
        long address = nativeAddress(buf, buf.writerIndex(), buf.writableBytes());
        MemorySegment n = nativeArea;
        long base = n.address();
        n.asSlice(DIRECT_HDR, MSGHDR_SIZE + SockAddr.STORAGE_SIZE).fill((byte) 0);
        n.set(JAVA_LONG, DIRECT_HDR, base + DIRECT_NAME);          // msg_name
        n.set(JAVA_INT, DIRECT_HDR + 8, SockAddr.STORAGE_SIZE);    // msg_namelen
        n.set(JAVA_LONG, DIRECT_HDR + 16, base + DIRECT_IOV);      // msg_iov
        n.set(JAVA_LONG, DIRECT_HDR + 24, 1);                      // msg_iovlen
        n.set(JAVA_LONG, DIRECT_IOV, address);
        n.set(JAVA_LONG, DIRECT_IOV + 8, buf.writableBytes());
        try {
            // MSG_TRUNC: the completion says the datagram's real length, so a cut one is recognised
            r.sq().prepRecvmsg(fd, base + DIRECT_HDR, SocketConstants.MSG_TRUNC,
                r.nextUserData(IORING_OP_RECVMSG, DIRECT));
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        directBuf = buf;
        started(READ_DIRECT);
        r.handler().counters().directRecvs++;
    }

    /**
     * The senders of recent datagrams, so that a peer that keeps sending (request and response) costs no new
     * InetSocketAddress per datagram: IPv4 and IPv4-mapped addresses, direct-mapped by address and port into 256
     * slots (a collision replaces the slot). Other addresses are decoded each time.
     */
    private static final class Senders {
        private static final java.lang.foreign.ValueLayout.OfInt INT_BE =
            JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        private static final java.lang.foreign.ValueLayout.OfShort SHORT_BE =
            java.lang.foreign.ValueLayout.JAVA_SHORT.withOrder(java.nio.ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        private final long[] keys = new long[256];
        private final InetSocketAddress[] values = new InetSocketAddress[256];

        /** @return the sockaddr of {@code length} bytes at {@code at} in {@code seg}, as an InetSocketAddress */
        InetSocketAddress read(MemorySegment seg, long at, int length) {
            int family = Short.toUnsignedInt(seg.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at));
            long ip;
            if (family == SocketConstants.AF_INET && length >= SockAddr.IN_SIZE) {
                ip = Integer.toUnsignedLong(seg.get(INT_BE, at + 4));
            } else if (family == SocketConstants.AF_INET6 && length >= SockAddr.IN6_SIZE
                && seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + 8) == 0
                && seg.get(INT_BE, at + 16) == 0x0000ffff) {
                ip = Integer.toUnsignedLong(seg.get(INT_BE, at + 20)); // ::ffff:a.b.c.d
            } else {
                return (InetSocketAddress) SockAddr.read(seg.asSlice(at, length), length);
            }
            int port = Short.toUnsignedInt(seg.get(SHORT_BE, at + 2));
            long key = ip << 16 | port | 1L << 48; // (bit 48: never the empty slot's 0)
            int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 56);
            if (keys[slot] == key) {
                return values[slot];
            }
            InetSocketAddress a = (InetSocketAddress) SockAddr.read(seg.asSlice(at, length), length);
            keys[slot] = key;
            values[slot] = a;
            return a;
        }
    }

    // ------------------------------------------------------------------------------------------ sending

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof DatagramPacket p) {
            ByteBuf content = p.content();
            checkRecipient(p.recipient());
            return content.isDirect() ? p : new DatagramPacket(toDirect(content, alloc()), p.recipient(), p.sender());
        }
        if (msg instanceof ByteBuf buf) {
            if (!connected) {
                throw new NotYetConnectedException();
            }
            return toDirect(buf, alloc());
        }
        if (msg instanceof AddressedEnvelope<?, ?> e && e.content() instanceof ByteBuf content
            && (e.recipient() == null || e.recipient() instanceof InetSocketAddress)) {
            InetSocketAddress recipient = (InetSocketAddress) e.recipient();
            checkRecipient(recipient);
            if (recipient == null && !connected) {
                throw new NotYetConnectedException();
            }
            ByteBuf direct = toDirect(content, alloc());
            return new DefaultAddressedEnvelope<>(direct, recipient, (InetSocketAddress) e.sender());
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
            + " (Ringwire's datagram channel writes DatagramPacket, AddressedEnvelope<ByteBuf, InetSocketAddress>, "
            + "or ByteBuf when connected)");
    }

    private static void checkRecipient(InetSocketAddress recipient) {
        if (recipient != null && recipient.isUnresolved()) {
            throw new java.nio.channels.UnresolvedAddressException(); // as NIO and Netty's native transports say
        }
    }

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

    // ------------------------------------------------------------------------------------------ multicast

    /**
     * Joins or leaves a multicast group (any source) on an interface: IP_ADD/DROP_MEMBERSHIP with an ip_mreqn, or
     * IPV6_ADD/DROP_MEMBERSHIP with an ipv6_mreq. Source-specific membership and blocking are not supported yet.
     *
     * @param iface the interface, or null for the channel's multicast interface (or the kernel's choice)
     */
    private ChannelFuture membership(boolean join, InetAddress group, NetworkInterface iface, InetAddress source,
                                     ChannelPromise promise) {
        if (source != null) {
            return unsupported(promise, "source-specific multicast membership");
        }
        try {
            if (group == null || !group.isMulticastAddress()) {
                throw new IllegalArgumentException("not a multicast group: " + group);
            }
            NetworkInterface i = iface != null ? iface : config.getNetworkInterface();
            int index = i == null ? 0 : i.getIndex();
            byte[] g = group.getAddress();
            java.nio.ByteBuffer m;
            if (g.length == 4) {
                // struct ip_mreqn { struct in_addr imr_multiaddr, imr_address; int imr_ifindex; }
                m = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.nativeOrder());
                m.put(g).putInt(0).putInt(index);
                Sockets.setBytes(fd, SocketConstants.IPPROTO_IP,
                    join ? SocketConstants.IP_ADD_MEMBERSHIP : SocketConstants.IP_DROP_MEMBERSHIP, m.array());
            } else {
                if (!ipv6) {
                    throw new IllegalArgumentException("an IPv6 group on an IPv4 socket: " + group);
                }
                // struct ipv6_mreq { struct in6_addr ipv6mr_multiaddr; unsigned int ipv6mr_interface; }
                m = java.nio.ByteBuffer.allocate(20).order(java.nio.ByteOrder.nativeOrder());
                m.put(g).putInt(index);
                Sockets.setBytes(fd, SocketConstants.IPPROTO_IPV6,
                    join ? SocketConstants.IPV6_ADD_MEMBERSHIP : SocketConstants.IPV6_DROP_MEMBERSHIP, m.array());
            }
            promise.setSuccess();
        } catch (Exception e) {
            promise.setFailure(e);
        }
        return promise;
    }

    private static ChannelFuture unsupported(ChannelPromise promise, String what) {
        promise.setFailure(new UnsupportedOperationException(what + " is not supported by Ringwire's datagram "
            + "channel yet"));
        return promise;
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress) {
        return joinGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, ChannelPromise future) {
        return membership(true, multicastAddress, null, null, future);
    }

    @Override
    public ChannelFuture joinGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface) {
        return joinGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface,
                                   ChannelPromise future) {
        return membership(true, multicastAddress.getAddress(), networkInterface, null, future);
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                   InetAddress source) {
        return joinGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                   InetAddress source, ChannelPromise future) {
        return membership(true, multicastAddress, networkInterface, source, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress) {
        return leaveGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, ChannelPromise future) {
        return membership(false, multicastAddress, null, null, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface) {
        return leaveGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface,
                                    ChannelPromise future) {
        return membership(false, multicastAddress.getAddress(), networkInterface, null, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                    InetAddress source) {
        return leaveGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                    InetAddress source, ChannelPromise future) {
        return membership(false, multicastAddress, networkInterface, source, future);
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, NetworkInterface networkInterface,
                               InetAddress sourceToBlock) {
        return block(multicastAddress, networkInterface, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, NetworkInterface networkInterface,
                               InetAddress sourceToBlock, ChannelPromise future) {
        return unsupported(future, "blocking a multicast source");
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, InetAddress sourceToBlock) {
        return block(multicastAddress, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, InetAddress sourceToBlock, ChannelPromise future) {
        return unsupported(future, "blocking a multicast source");
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
                if (data == DIRECT) {
                    directRecvComplete(res);
                } else {
                    multishotRecvComplete(res, flags);
                }
            } else if (opcode == IORING_OP_SENDMSG) {
                sendComplete(data, res);
            } // else our own ASYNC_CANCELs
        }

        private void multishotRecvComplete(int res, int flags) {
            if (readCompleted(MULTISHOT, flags)) {
                recvNeedsRearm = true;
            }
            RingwireIoRegistration r = registration;
            RingwireIoHandler h = r.handler();
            if (res >= 0 && IoUringCqe.hasBuffer(flags)) {
                BufferRing buffers = h.recvBuffers();
                int bid = IoUringCqe.bufferId(flags);
                try {
                    MemorySegment ring = buffers.segment();
                    long at = buffers.address(bid) + buffers.dataOffset(bid) - ring.address();
                    int namelen = ring.get(JAVA_INT, at);
                    int payloadLength = ring.get(JAVA_INT, at + 8);
                    int msgFlags = ring.get(JAVA_INT, at + 12);
                    int room = res - RECVMSG_OUT_SIZE - NAME_ROOM;
                    InetSocketAddress sender = senders.read(ring, at + RECVMSG_OUT_SIZE, Math.min(namelen, NAME_ROOM));
                    if ((msgFlags & SocketConstants.MSG_TRUNC) != 0 || payloadLength > room) {
                        truncated(payloadLength, Math.max(room, 0), sender);
                    } else {
                        int payloadOffset = buffers.dataOffset(bid) + RECVMSG_OUT_SIZE + NAME_ROOM;
                        ByteBuf buf = config.getAllocator().directBuffer(payloadLength);
                        copy(h.recvBufferView(bid, payloadOffset, payloadLength), buffers.address(bid), buf,
                            payloadLength);
                        received(buf, sender);
                    }
                } finally {
                    buffers.release(bid, res, flags);
                }
            } else if (res == -Errno.ENOBUFS) {
                ringDry = !h.ringRanDry(); // grown: the ring again; at its largest: a buffer of the channel's own
            } else if (res < 0) {
                recvError(res);
            }
            r.notifyAfterCompletions();
        }

        private void directRecvComplete(int res) {
            readCompleted(DIRECT, 0);
            recvNeedsRearm = true;
            ByteBuf buf = directBuf;
            directBuf = null;
            try {
                if (res >= 0 && isOpen()) {
                    MemorySegment n = nativeArea;
                    InetSocketAddress sender = senders.read(n, DIRECT_NAME,
                        Math.min(n.get(JAVA_INT, DIRECT_HDR + 8), SockAddr.STORAGE_SIZE));
                    if (res > buf.writableBytes()) {
                        truncated(res, buf.writableBytes(), sender);
                    } else {
                        buf.writerIndex(buf.writerIndex() + res);
                        received(buf, sender);
                        buf = null; // the pipeline owns it
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

        private void received(ByteBuf buf, InetSocketAddress sender) {
            RingwireCounters c = registration.handler().counters();
            c.recvs++;
            c.recvBytes += buf.readableBytes();
            readInBatch = true;
            if (!config.isAutoRead()) {
                readPending = false; // this datagram answers the read()
            }
            pipeline().fireChannelRead(new DatagramPacket(buf, RingwireDatagramChannel.this.localAddress(), sender));
        }

        private void truncated(int length, int room, InetSocketAddress sender) {
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
            holdBatchForKernel();
            super.close(promise, cause, closeCause);
        }

        private void holdBatchForKernel() {
            if (sendsInFlight != 0) {
                holdForKernel(outboundBuffer(), sendsInBatch);
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
            if (sendsInBatch > 0 || in == null || in.isEmpty() || fd < 0 || !isOpen() || closingOffLoop) {
                return;
            }
            preparing = 0;
            preparingFor = r;
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
            ByteBuf content;
            InetSocketAddress recipient;
            if (msg instanceof AddressedEnvelope<?, ?> e) {
                content = (ByteBuf) e.content();
                recipient = (InetSocketAddress) e.recipient();
            } else {
                content = (ByteBuf) msg;
                recipient = null;
            }
            RingwireIoRegistration r = preparingFor;
            RingwireIoHandler h = r.handler();
            int readable = content.readableBytes();
            long single = nativeAddress(content, content.readerIndex(), readable);
            ByteBuffer[] parts = single != 0 || readable == 0 ? null : content.nioBuffers();
            int iovecs = parts == null ? 1 : parts.length;
            int size = MSGHDR_SIZE + SockAddr.STORAGE_SIZE + 16 * iovecs;
            if (size > h.scratchRemaining() || !r.reserveSqe()) {
                return false; // next iteration
            }
            long region = h.scratch(size);
            MemorySegment s = h.scratchSegment();
            long off = region - s.address();
            long name = region + MSGHDR_SIZE;
            long iov = name + SockAddr.STORAGE_SIZE;
            // struct msghdr { name, namelen, iov, iovlen, control, controllen, flags }, every field set
            int nameLength = recipient == null ? 0
                : SockAddr.write(recipient, s.asSlice(off + MSGHDR_SIZE, SockAddr.STORAGE_SIZE), ipv6);
            s.set(JAVA_LONG, off, recipient == null ? 0 : name);
            s.set(JAVA_INT, off + 8, nameLength);
            s.set(JAVA_INT, off + 12, 0);
            s.set(JAVA_LONG, off + 16, iov);
            s.set(JAVA_LONG, off + 24, iovecs);
            s.set(JAVA_LONG, off + 32, 0);
            s.set(JAVA_LONG, off + 40, 0);
            s.set(JAVA_LONG, off + 48, 0);
            long iovOff = off + MSGHDR_SIZE + SockAddr.STORAGE_SIZE;
            if (parts == null) {
                s.set(JAVA_LONG, iovOff, single);
                s.set(JAVA_LONG, iovOff + 8, readable);
            } else {
                for (ByteBuffer part : parts) {
                    s.set(JAVA_LONG, iovOff, MemorySegment.ofBuffer(part).address());
                    s.set(JAVA_LONG, iovOff + 8, part.remaining());
                    iovOff += 16;
                }
            }
            SubmissionQueue q = r.sq();
            int slot = preparing++;
            q.prepSendmsg(fd, region, SocketConstants.MSG_NOSIGNAL, r.nextUserData(IORING_OP_SENDMSG, slot));
            sendsInFlight |= 1L << slot;
            RingwireCounters c = h.counters();
            c.writes++;
            c.writeIovecs += iovecs;
            return true;
        }

        private void sendComplete(int slot, int res) {
            sendsInFlight &= ~(1L << slot);
            sendResults[slot] = res;
            if (sendsInFlight != 0) {
                return;
            }
            int n = sendsInBatch;
            sendsInBatch = 0;
            releaseHeldForKernel();
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null) {
                return; // closed: the outbound buffer was failed already
            }
            RingwireCounters c = registration.handler().counters();
            for (int i = 0; i < n && !in.isEmpty(); i++) {
                int result = sendResults[i];
                if (result >= 0) {
                    c.writeBytes += result;
                    in.remove();
                } else {
                    in.remove(sendError(result));
                }
            }
            if (!in.isEmpty()) {
                doWrite(in);
            }
        }

        private Throwable sendError(int res) {
            if (res == -Errno.ECONNREFUSED) {
                return new PortUnreachableException("sendmsg: " + Errno.name(res) + " (an earlier datagram to "
                    + remoteAddress() + " found no socket on that port)");
            }
            if (res == -Errno.ECANCELED) {
                return new java.nio.channels.ClosedChannelException();
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
                if (isOpen() && (config.isAutoRead() || readPending)) {
                    armRecv();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "RingwireDatagramChannel[fd=" + fd + ", " + localAddress()
            + (connected ? " -> " + remoteAddress() : "") + "]";
    }
}
