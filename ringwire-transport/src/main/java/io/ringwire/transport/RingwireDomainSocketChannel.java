package io.ringwire.transport;

import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.PeerCredentials;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * A Unix domain stream connection on io_uring: the same reads (multishot RECV from the loop's buffer ring, own-buffer
 * receives for bulk streams), gathered writes and half-closure as {@link RingwireSocketChannel}. Addresses are
 * Netty's {@link DomainSocketAddress} (a path, or an abstract name starting with NUL); the JDK's
 * {@link java.net.UnixDomainSocketAddress} is taken too. Passes file descriptors as Netty's native domain channels do:
 * a {@link FileDescriptor} written goes to the peer (SCM_RIGHTS, with one byte), and with
 * {@code DomainSocketReadMode.FILE_DESCRIPTORS} each descriptor the peer passes is read as a {@link FileDescriptor},
 * which the application closes.
 */
public final class RingwireDomainSocketChannel extends AbstractRingwireStreamChannel implements DomainSocketChannel {
    /** An unconnected client socket. */
    public RingwireDomainSocketChannel() {
        this(FixedFileTable.clientSocketsInSlots());
    }

    /** @param inSlot whether the socket is made when the channel joins its loop (see clientSocketsInSlots) */
    private RingwireDomainSocketChannel(boolean inSlot) {
        super(SocketConstants.AF_UNIX, inSlot ? DIRECT_DESCRIPTOR_FD : DomainSockets.openStream());
        this.config = new RingwireDomainSocketChannelConfig(this);
    }

    RingwireDomainSocketChannel(RingwireServerDomainSocketChannel parent, int fd) {
        super(parent, fd, true);
        this.config = new RingwireDomainSocketChannelConfig(this);
    }

    /** A connection accepted into a direct descriptor: {@code slot} of {@code home}'s fixed-file table, no fd. */
    RingwireDomainSocketChannel(RingwireServerDomainSocketChannel parent, int slot, RingwireIoHandler home) {
        super(parent, slot, home);
        this.config = new RingwireDomainSocketChannelConfig(this);
    }

    @Override
    public RingwireDomainSocketChannelConfig config() {
        // the stream channel's own field: a typed copy of it would cost every connection 8 bytes
        return (RingwireDomainSocketChannelConfig) config;
    }

    @Override
    public DomainSocketAddress localAddress() {
        return (DomainSocketAddress) super.localAddress();
    }

    @Override
    public DomainSocketAddress remoteAddress() {
        return (DomainSocketAddress) super.remoteAddress();
    }

    /**
     * @return who is at the other end (SO_PEERCRED: its pid, uid and gid as of connect or listen)
     * @throws IOException if the kernel will not say (the socket is closed or not connected)
     */
    public PeerCredentials peerCredentials() throws IOException {
        return DomainSockets.peerCredentials(this);
    }

    @Override
    boolean readsFileDescriptors() {
        return config().getReadMode() == DomainSocketReadMode.FILE_DESCRIPTORS;
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof FileDescriptor) {
            return msg;
        }
        return super.filterOutboundMessage(msg);
    }

    @Override
    SocketAddress readAddress(boolean ofSocket) throws NativeIoException {
        return withFd(f -> DomainSockets.address(f, ofSocket)); // (a direct descriptor: an fd for the call)
    }

    @Override
    void bindSocket(SocketAddress localAddress) throws Exception {
        String path = DomainSockets.path(localAddress);
        withFd(f -> {
            Sockets.bindUnix(f, path);
            return null;
        });
    }

    @Override
    int writeRemoteAddress(SocketAddress remote, MemorySegment dst) {
        return SockAddr.writeUnix(DomainSockets.path(remote), dst);
    }

    @Override
    void cacheRemoteAddress(SocketAddress a) {
        super.cacheRemoteAddress(DomainSockets.toDomainAddress(a));
    }

    @Override
    public String toString() {
        if (isDirectDescriptor()) {
            return "RingwireDomainSocketChannel[" + directDescriptorPlace() + ", " + cachedAddresses() + "]";
        }
        return "RingwireDomainSocketChannel[fd=" + fd + ", " + localAddress() + " -> " + remoteAddress() + "]";
    }
}
