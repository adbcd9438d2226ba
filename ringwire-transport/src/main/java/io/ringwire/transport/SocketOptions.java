package io.ringwire.transport;

import io.netty.channel.ChannelException;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

import static io.ringwire.uring.SocketConstants.IPPROTO_IP;
import static io.ringwire.uring.SocketConstants.IPPROTO_IPV6;
import static io.ringwire.uring.SocketConstants.IPV6_TCLASS;
import static io.ringwire.uring.SocketConstants.IP_TOS;

/** Int socket options with Netty's exception convention ({@link ChannelException} on failure). */
final class SocketOptions {
    private SocketOptions() { }

    static int get(int fd, int level, int name) {
        try {
            return Sockets.getInt(fd, level, name);
        } catch (NativeIoException e) {
            throw new ChannelException(e);
        }
    }

    static void set(int fd, int level, int name, int value) {
        try {
            Sockets.setInt(fd, level, name, value);
        } catch (NativeIoException e) {
            throw new ChannelException(e);
        }
    }

    static boolean getBoolean(int fd, int level, int name) {
        return get(fd, level, name) != 0;
    }

    static void setBoolean(int fd, int level, int name, boolean value) {
        set(fd, level, name, value ? 1 : 0);
    }

    /** @return IPV6_TCLASS on an IPv6 socket, IP_TOS on an IPv4 one */
    static int trafficClass(int fd, boolean ipv6) {
        return ipv6 ? get(fd, IPPROTO_IPV6, IPV6_TCLASS) : get(fd, IPPROTO_IP, IP_TOS);
    }

    /** Sets IP_TOS, and IPV6_TCLASS too on an IPv6 socket (whose IPv4-mapped traffic uses the former). */
    static void setTrafficClass(int fd, boolean ipv6, int trafficClass) {
        if (ipv6) {
            set(fd, IPPROTO_IPV6, IPV6_TCLASS, trafficClass);
        }
        set(fd, IPPROTO_IP, IP_TOS, trafficClass);
    }
}
