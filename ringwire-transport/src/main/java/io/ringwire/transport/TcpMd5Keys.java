package io.ringwire.transport;

import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * {@link RingwireChannelOption#TCP_MD5SIG} on a TCP socket: the kernel keeps the keys, a channel only the peers it
 * gave keys to, so that the next set can take away those it no longer names.
 */
final class TcpMd5Keys {
    private TcpMd5Keys() { }

    /**
     * Replaces the socket's keys with {@code keys}: checks every entry first (nothing changes when one is bad), then
     * removes the keys of peers {@code keys} does not name, then sets each of {@code keys}.
     *
     * @param channel the socket's channel (its fd, or a connection on a direct descriptor)
     * @param ipv6    whether the socket is AF_INET6
     * @param current the peers the socket has keys for now (null: none)
     * @return the peers it has keys for after
     * @throws IllegalArgumentException a null peer, a key that is null, empty or longer than 80 bytes, an IPv6 peer
     *                                  on an IPv4 socket
     * @throws io.netty.channel.ChannelException the kernel refused one, naming the errno
     */
    static List<InetAddress> replace(AbstractRingwireChannel channel, boolean ipv6, List<InetAddress> current,
                                     Map<InetAddress, byte[]> keys) {
        if (keys == null) {
            throw new NullPointerException("TCP_MD5SIG keys");
        }
        try {
            for (Map.Entry<InetAddress, byte[]> e : keys.entrySet()) {
                byte[] key = e.getValue();
                if (e.getKey() == null) {
                    throw new IllegalArgumentException("a TCP_MD5SIG key for a null address");
                }
                if (key == null || key.length == 0 || key.length > SocketConstants.TCP_MD5SIG_MAXKEYLEN) {
                    throw new IllegalArgumentException("the TCP_MD5SIG key for " + e.getKey().getHostAddress()
                        + " is " + (key == null ? "null" : key.length + " bytes") + "; a key is 1 to "
                        + SocketConstants.TCP_MD5SIG_MAXKEYLEN + " bytes");
                }
                if (!ipv6 && e.getKey() instanceof Inet6Address) {
                    throw new IllegalArgumentException("a TCP_MD5SIG key for IPv6 peer " + e.getKey().getHostAddress()
                        + " on an IPv4 socket");
                }
            }
            if (current != null) {
                for (InetAddress peer : current) {
                    if (!keys.containsKey(peer)) {
                        set(channel, ipv6, peer, null);
                    }
                }
            }
            for (Map.Entry<InetAddress, byte[]> e : keys.entrySet()) {
                set(channel, ipv6, e.getKey(), e.getValue());
            }
            return List.copyOf(keys.keySet());
        } catch (NativeIoException e) {
            throw SocketOptions.failure(e);
        }
    }

    private static void set(AbstractRingwireChannel channel, boolean ipv6, InetAddress peer, byte[] key)
        throws NativeIoException {
        try {
            channel.setBytesOption(SocketConstants.IPPROTO_TCP, SocketConstants.TCP_MD5SIG,
                Sockets.tcpMd5Sig(ipv6, peer, key));
        } catch (NativeIoException e) {
            throw new NativeIoException("setsockopt(TCP_MD5SIG, " + peer.getHostAddress()
                + (key == null ? ", removed)" : ")"), -e.errno());
        }
    }
}
