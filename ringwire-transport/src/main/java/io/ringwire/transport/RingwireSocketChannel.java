package io.ringwire.transport;

import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A TCP connection on io_uring: {@link AbstractRingwireStreamChannel}'s reads (multishot RECV from the loop's
 * buffer ring, own-buffer receives for bulk streams) and gathered writes, with TCP's options and addresses.
 */
public final class RingwireSocketChannel extends AbstractRingwireStreamChannel implements SocketChannel {
    private final boolean ipv6;

    /** A client socket: dual-stack IPv6 when the host has IPv6, otherwise IPv4. */
    public RingwireSocketChannel() {
        this(defaultFamily());
    }

    /**
     * @param family the address family to open the socket in
     */
    public RingwireSocketChannel(InternetProtocolFamily family) {
        this(family, FixedFileTable.clientSocketsInSlots());
    }

    /** @param inSlot whether the socket is made when the channel joins its loop (see clientSocketsInSlots) */
    private RingwireSocketChannel(InternetProtocolFamily family, boolean inSlot) {
        super(inSlot ? inetFamily(family) : AF_NONE, inSlot ? DIRECT_DESCRIPTOR_FD : openStream(family));
        this.ipv6 = family == InternetProtocolFamily.IPv6;
        this.config = new RingwireSocketChannelConfig(this);
    }

    RingwireSocketChannel(RingwireServerSocketChannel parent, int fd) throws NativeIoException {
        super(parent, fd, true);
        this.ipv6 = Sockets.isIpv6(fd);
        RingwireSocketChannelConfig tcp = new RingwireSocketChannelConfig(this);
        this.config = tcp;
        java.util.List<java.net.InetAddress> md5 = parent.config().tcpMd5Peers();
        if (md5 != null) {
            tcp.inheritTcpMd5Peers(md5);
        }
    }

    /**
     * A connection accepted into a direct descriptor, which holds no fd.
     *
     * @param slot its slot in {@code home}'s fixed-file table
     */
    RingwireSocketChannel(RingwireServerSocketChannel parent, int slot, RingwireIoHandler home, boolean ipv6) {
        super(parent, slot, home);
        this.ipv6 = ipv6;
        // the listener has TCP_NODELAY for its direct descriptors, and they inherit it
        RingwireSocketChannelConfig tcp = new RingwireSocketChannelConfig(this, true);
        this.config = tcp;
        java.util.List<java.net.InetAddress> md5 = parent.config().tcpMd5Peers();
        if (md5 != null) {
            tcp.inheritTcpMd5Peers(md5);
        }
    }

    boolean isIpv6() {
        return ipv6;
    }

    @Override
    public ServerSocketChannel parent() {
        return (ServerSocketChannel) super.parent();
    }

    @Override
    int sendZcThreshold() {
        return config().getSendZcThreshold();
    }

    @Override
    public RingwireSocketChannelConfig config() {
        // the stream channel's own field: a typed copy of it would cost every connection 8 bytes
        return (RingwireSocketChannelConfig) config;
    }

    /**
     * This connection's {@code TCP_INFO} now (round-trip time, congestion window, retransmissions, bytes acknowledged
     * and received, ...), as Netty's {@code EpollSocketChannel.tcpInfo()} and {@code IoUringSocketChannel.tcpInfo()}
     * give it.
     *
     * @return a snapshot
     * @throws io.netty.channel.ChannelException naming the errno; on a closed channel caused by a
     *                                          {@link java.nio.channels.ClosedChannelException}
     */
    public RingwireTcpInfo tcpInfo() {
        try {
            return new RingwireTcpInfo(getBytesOption(SocketConstants.IPPROTO_TCP, SocketConstants.TCP_INFO,
                RingwireTcpInfo.SIZE));
        } catch (NativeIoException e) {
            throw SocketOptions.failure(e);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    int writeRemoteAddress(SocketAddress remote, MemorySegment dst) {
        return SockAddr.write(remote, dst, ipv6);
    }

    @Override
    SocketAddress readAddress(boolean ofSocket) throws NativeIoException {
        if (!isDirectDescriptor()) {
            return super.readAddress(ofSocket);
        }
        // the peer's through URING_CMD, no fd; the socket's own needs getsockname(2) on an fd for the call
        return ofSocket ? withFd(Sockets::localAddress) : socket.directDescriptorPeerAddress(ipv6
            ? SockAddr.IN6_SIZE : SockAddr.IN_SIZE);
    }

    @Override
    void bindSocket(SocketAddress localAddress) throws Exception {
        if (!isDirectDescriptor()) {
            super.bindSocket(localAddress);
            return;
        }
        checkResolvable(localAddress);
        socket.bindDirectDescriptor(localAddress, ipv6);
    }

    @Override
    int lingerSeconds() {
        return config().getSoLinger();
    }

    @Override
    public String toString() {
        if (isDirectDescriptor()) {
            // no call on the socket from here: toString runs on any thread, and a direct descriptor's calls on its loop
            return "RingwireSocketChannel[" + directDescriptorPlace() + ", " + cachedAddresses() + "]";
        }
        return "RingwireSocketChannel[fd=" + fd + ", " + localAddress() + " -> " + remoteAddress() + "]";
    }
}
