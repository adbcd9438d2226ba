package io.ringwire.transport;

import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.PeerCredentials;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.lang.reflect.Constructor;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/** What Ringwire's Unix domain socket channels share: addresses, opening, peer credentials. */
final class DomainSockets {
    private DomainSockets() { }

    /** Netty's PeerCredentials has no public constructor (its JNI makes them): reached once, reflectively. */
    private static final Constructor<PeerCredentials> PEER_CREDENTIALS;
    private static final Throwable PEER_CREDENTIALS_UNAVAILABLE;

    static {
        Constructor<PeerCredentials> c = null;
        Throwable cause = null;
        try {
            c = PeerCredentials.class.getDeclaredConstructor(int.class, int.class, int[].class);
            c.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            c = null;
            cause = e;
        }
        PEER_CREDENTIALS = c;
        PEER_CREDENTIALS_UNAVAILABLE = cause;
    }

    /** Opens a non-blocking AF_UNIX stream socket, as a constructor argument (hence unchecked). */
    static int openStream() {
        return AbstractRingwireChannel.openSocket(SocketConstants.AF_UNIX, SocketConstants.SOCK_STREAM);
    }

    /**
     * @param address Netty's {@link DomainSocketAddress} or the JDK's {@link UnixDomainSocketAddress}
     * @return its path, or its abstract name with a leading NUL
     */
    static String path(SocketAddress address) {
        if (address instanceof DomainSocketAddress d) {
            return d.path();
        }
        if (address instanceof UnixDomainSocketAddress u) {
            return u.getPath().toString();
        }
        throw new IllegalArgumentException("a Unix domain socket takes a DomainSocketAddress (or the JDK's "
            + "UnixDomainSocketAddress), not " + (address == null ? null : address.getClass().getName()) + ": "
            + address);
    }

    /** @return {@code a} as Netty's {@link DomainSocketAddress} (null stays null) */
    static DomainSocketAddress toDomainAddress(SocketAddress a) {
        return a == null || a instanceof DomainSocketAddress ? (DomainSocketAddress) a
            : new DomainSocketAddress(path(a));
    }

    /**
     * @return the socket's address or its peer's as a {@link DomainSocketAddress}; an unnamed socket's (a client
     *         that did not bind) has the empty path, as in Netty's native transports
     */
    static DomainSocketAddress address(int fd, boolean ofSocket) throws NativeIoException {
        String path = Sockets.unixAddress(fd, ofSocket);
        return new DomainSocketAddress(path == null ? "" : path);
    }

    /** SO_PEERCRED as Netty's {@link PeerCredentials}: by the fd, or through a direct descriptor's loop. */
    static PeerCredentials peerCredentials(AbstractRingwireChannel channel) throws java.io.IOException {
        int[] c;
        if (channel.isDirectDescriptor()) {
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
            java.nio.ByteBuffer u = java.nio.ByteBuffer.wrap(channel.getBytesOption(SocketConstants.SOL_SOCKET,
                SocketConstants.SO_PEERCRED, 12)).order(java.nio.ByteOrder.nativeOrder());
            c = new int[] {u.getInt(0), u.getInt(4), u.getInt(8)};
        } else {
            c = Sockets.peerCredentials(channel.fd);
        }
        if (PEER_CREDENTIALS == null) {
            throw new UnsupportedOperationException("cannot make io.netty.channel.unix.PeerCredentials (its "
                + "constructor is not public, and reflection was refused); pid=" + c[0] + " uid=" + c[1]
                + " gid=" + c[2], PEER_CREDENTIALS_UNAVAILABLE);
        }
        try {
            return PEER_CREDENTIALS.newInstance(c[0], c[1], new int[] {c[2]});
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
