package io.ringwire.transport;

import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.ServerSocketChannel;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.net.InetSocketAddress;

/**
 * A listening TCP socket: {@link AbstractRingwireServerChannel}'s multishot ACCEPT, handing out
 * {@link RingwireSocketChannel}s.
 */
public final class RingwireServerSocketChannel extends AbstractRingwireServerChannel implements ServerSocketChannel {
    private final RingwireServerSocketChannelConfig config;

    /** A dual-stack (IPv6, IPv4-mapped) socket when the host has IPv6, otherwise IPv4. */
    public RingwireServerSocketChannel() {
        this(defaultFamily());
    }

    /**
     * @param family the address family to open the socket in
     */
    public RingwireServerSocketChannel(InternetProtocolFamily family) {
        super(openStream(family));
        this.config = new RingwireServerSocketChannelConfig(this);
    }

    @Override
    public RingwireServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    int backlog() {
        return config.getBacklog();
    }

    @Override
    AbstractRingwireChannel newChildChannel(int childFd) throws Exception {
        return new RingwireSocketChannel(this, childFd);
    }

    /** Whether the listening socket is AF_INET6, asked once before the first direct descriptor. */
    private boolean ipv6;

    @Override
    void prepareForDirectChildren() throws Exception {
        ipv6 = Sockets.isIpv6(fd);
        // Netty's default for every TCP connection, and accepted sockets inherit it: set once here, not per slot
        Sockets.setInt(fd, SocketConstants.IPPROTO_TCP, SocketConstants.TCP_NODELAY, 1);
    }

    @Override
    AbstractRingwireChannel newDirectChildChannel(int slot, RingwireIoHandler home) {
        return new RingwireSocketChannel(this, slot, home, ipv6);
    }

    @Override
    public String toString() {
        return "RingwireServerSocketChannel[fd=" + fd + ", local=" + localAddress() + "]";
    }
}
