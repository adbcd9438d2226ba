package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.DefaultAddressedEnvelope;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.PeerCredentials;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * A Unix domain datagram socket (AF_UNIX, SOCK_DGRAM) on io_uring, which Netty's io_uring transport does not have:
 * the same multishot RECVMSG from the loop's buffer ring and batched SENDMSGs as {@link RingwireDatagramChannel} (see
 * {@link AbstractRingwireDatagramChannel}). Datagrams are {@link DomainDatagramPacket}s; addresses are Netty's
 * {@link DomainSocketAddress} (a path, or an abstract name starting with NUL), and the JDK's
 * {@link UnixDomainSocketAddress} is taken too. A datagram from a socket that did not bind comes from the empty path
 * (as in Netty's epoll transport), which cannot be answered.
 */
public final class RingwireDomainDatagramChannel extends AbstractRingwireDatagramChannel<DomainSocketAddress>
    implements DomainDatagramChannel {
    /** sizeof(struct sockaddr_un): a sender's address in each ring buffer. */
    private static final int SOCKADDR_UN_SIZE = SockAddr.UN_PATH_OFFSET + SockAddr.UN_PATH_MAX;

    /** The sender of a datagram from a socket that did not bind (as Netty's epoll transport says it: no path). */
    private static final DomainSocketAddress UNNAMED = new DomainSocketAddress("");

    private final RingwireDomainDatagramChannelConfig config;

    /** An unbound socket. */
    public RingwireDomainDatagramChannel() {
        super(openSocket(SocketConstants.AF_UNIX, SocketConstants.SOCK_DGRAM), SOCKADDR_UN_SIZE);
        this.config = new RingwireDomainDatagramChannelConfig(this);
    }

    @Override
    public RingwireDomainDatagramChannelConfig config() {
        return config;
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
     * @return who is at the other end (SO_PEERCRED), for a socket connected to a peer that has credentials to tell
     * @throws IOException if the kernel will not say
     */
    public PeerCredentials peerCredentials() throws IOException {
        return DomainSockets.peerCredentials(this);
    }

    @Override
    boolean activeOnOpen() {
        return config.isActiveOnOpen();
    }

    @Override
    SocketAddress readAddress(boolean ofSocket) throws NativeIoException {
        return DomainSockets.address(fd, ofSocket);
    }

    @Override
    void bindSocket(SocketAddress localAddress) throws Exception {
        Sockets.bindUnix(fd, DomainSockets.path(localAddress));
    }

    @Override
    void cacheRemoteAddress(SocketAddress a) {
        super.cacheRemoteAddress(DomainSockets.toDomainAddress(a));
    }

    /*
     * The last sender and the last recipient, so that a peer that keeps sending, and the answers to it, cost no
     * address or byte array per datagram (as the UDP channel's sender cache): the sender's name as the kernel wrote
     * it (sun_path, namelen - 2 bytes) and the address made of it; the recipient's sun_path bytes, checked.
     */
    private MemorySegment lastName;
    private DomainSocketAddress lastSender;
    private SocketAddress lastRecipient;
    private byte[] lastRecipientPath;

    @Override
    DomainSocketAddress sender(MemorySegment seg, long at, int length) {
        int n = length - SockAddr.UN_PATH_OFFSET;
        if (n <= 0) {
            return UNNAMED;
        }
        long from = at + SockAddr.UN_PATH_OFFSET;
        MemorySegment last = lastName;
        if (last != null && last.byteSize() == n && MemorySegment.mismatch(seg, from, from + n, last, 0, n) == -1) {
            return lastSender;
        }
        String path = SockAddr.readUnix(seg.asSlice(at, length), length);
        lastName = MemorySegment.ofArray(seg.asSlice(from, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        lastSender = path == null ? UNNAMED : new DomainSocketAddress(path);
        return lastSender;
    }

    @Override
    int writeRecipient(SocketAddress recipient, MemorySegment dst) {
        return SockAddr.writeUnix(recipientPath(recipient), dst);
    }

    /**
     * @return the recipient's sun_path bytes, from the last one's when it is the same address
     * @throws IllegalArgumentException if no sockaddr_un can hold it
     */
    private byte[] recipientPath(SocketAddress recipient) {
        if (recipient != lastRecipient && !(recipient instanceof DomainSocketAddress d && d.equals(lastRecipient))) {
            lastRecipientPath = SockAddr.unixPathBytes(DomainSockets.path(recipient));
            lastRecipient = recipient;
        }
        return lastRecipientPath;
    }

    @Override
    Object packet(ByteBuf content, DomainSocketAddress sender, DomainSocketAddress recipient) {
        return new DomainDatagramPacket(content, localAddress(), sender);
    }

    @Override
    boolean isRecipient(SocketAddress recipient) {
        return recipient instanceof DomainSocketAddress || recipient instanceof UnixDomainSocketAddress;
    }

    /** Refuses, when it is written, a recipient no sockaddr_un can hold (the empty path of an unbound sender). */
    @Override
    void checkRecipient(SocketAddress recipient) {
        if (recipient != null) {
            recipientPath(recipient);
        }
    }

    @Override
    AddressedEnvelope<ByteBuf, ? extends SocketAddress> envelope(AddressedEnvelope<?, ?> e, ByteBuf direct) {
        if (e instanceof DomainDatagramPacket p) {
            return new DomainDatagramPacket(direct, p.recipient(), p.sender());
        }
        return new DefaultAddressedEnvelope<>(direct, e.recipient(), e.sender());
    }

    /** No socket is bound to the recipient's name (or the file at its path is not a bound socket). */
    @Override
    Throwable sendRefused(SocketAddress recipient) {
        String name = recipient == null ? "the peer" : DomainSockets.path(recipient);
        // an abstract name written as ss(8) does, with @ for its leading NUL
        return new NativeIoException("sendmsg to " + (name.startsWith("\0") ? "@" + name.substring(1) : name)
            + " (no socket bound there)", -Errno.ECONNREFUSED);
    }

    /** A unix datagram socket copies a datagram before it finds the peer's queue full: see the base's javadoc. */
    @Override
    boolean linkedSends() {
        return true;
    }

    @Override
    String messageTypes() {
        return "DomainDatagramPacket, AddressedEnvelope<ByteBuf, DomainSocketAddress>";
    }
}
