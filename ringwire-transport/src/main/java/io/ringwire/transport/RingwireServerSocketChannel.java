package io.ringwire.transport;

import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.ServerSocketChannel;

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

    @Override
    public String toString() {
        return "RingwireServerSocketChannel[fd=" + fd + ", local=" + localAddress() + "]";
    }
}
