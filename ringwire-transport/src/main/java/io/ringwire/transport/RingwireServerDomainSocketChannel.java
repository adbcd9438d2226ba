package io.ringwire.transport;

import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.ServerDomainSocketChannel;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A listening Unix domain stream socket: {@link AbstractRingwireServerChannel}'s multishot ACCEPT, handing out
 * {@link RingwireDomainSocketChannel}s. As with Netty's native transports, the socket file it bound is deleted when
 * it closes (an abstract name leaves no file).
 */
public final class RingwireServerDomainSocketChannel extends AbstractRingwireServerChannel
    implements ServerDomainSocketChannel {
    private final RingwireServerDomainSocketChannelConfig config;
    /** The path this channel bound, deleted on close; null for an abstract name or before bind. */
    private volatile String boundPath;

    /** A listening Unix domain stream socket, made now; bind it to a path or an abstract name. */
    public RingwireServerDomainSocketChannel() {
        super(DomainSockets.openStream());
        this.config = new RingwireServerDomainSocketChannelConfig(this);
    }

    @Override
    public RingwireServerDomainSocketChannelConfig config() {
        return config;
    }

    @Override
    public DomainSocketAddress localAddress() {
        return (DomainSocketAddress) super.localAddress();
    }

    @Override
    public DomainSocketAddress remoteAddress() {
        return null;
    }

    @Override
    int backlog() {
        return config.getBacklog();
    }

    @Override
    AbstractRingwireChannel newChildChannel(int childFd) {
        return new RingwireDomainSocketChannel(this, childFd);
    }

    @Override
    AbstractRingwireChannel newDirectChildChannel(int slot, RingwireIoHandler home) {
        return new RingwireDomainSocketChannel(this, slot, home);
    }

    @Override
    SocketAddress readAddress(boolean ofSocket) throws NativeIoException {
        return DomainSockets.address(fd, ofSocket);
    }

    @Override
    void bindSocket(SocketAddress localAddress) throws Exception {
        String path = DomainSockets.path(localAddress);
        Sockets.bindUnix(fd, path);
        if (!path.startsWith("\0")) {
            boundPath = path;
        }
    }

    @Override
    protected void doClose() throws Exception {
        try {
            super.doClose();
        } finally {
            String path = boundPath;
            boundPath = null;
            if (path != null) {
                try {
                    Files.deleteIfExists(Path.of(path));
                } catch (java.io.IOException | RuntimeException e) {
                    logger.debug("could not delete the socket file {}", path, e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "RingwireServerDomainSocketChannel[fd=" + fd + ", local=" + localAddress() + "]";
    }
}
