package io.ringwire.transport;

import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

import static io.ringwire.uring.SocketConstants.IPPROTO_IP;
import static io.ringwire.uring.SocketConstants.IPPROTO_IPV6;
import static io.ringwire.uring.SocketConstants.IPV6_TCLASS;
import static io.ringwire.uring.SocketConstants.IP_TOS;

/** Socket options with Netty's exception convention ({@link ChannelException} on failure). */
final class SocketOptions {
    private SocketOptions() { }

    /**
     * @return Netty's exception for a socket option the kernel refused: on a closed channel (EBADF: its fd is gone)
     *         a {@link ChannelException} caused by a {@link ClosedChannelException}, as Netty's native channels
     *         throw it; otherwise one caused by the refusal, which names the errno
     */
    static ChannelException failure(NativeIoException e) {
        if (e.errno() == Errno.EBADF) {
            ClosedChannelException closed = new ClosedChannelException();
            closed.addSuppressed(e);
            return new ChannelException(closed);
        }
        return new ChannelException(e);
    }

    static int get(int fd, int level, int name) {
        try {
            return Sockets.getInt(fd, level, name);
        } catch (NativeIoException e) {
            throw failure(e);
        }
    }

    static void set(int fd, int level, int name, int value) {
        try {
            Sockets.setInt(fd, level, name, value);
        } catch (NativeIoException e) {
            throw failure(e);
        }
    }

    static boolean getBoolean(int fd, int level, int name) {
        return get(fd, level, name) != 0;
    }

    static void setBoolean(int fd, int level, int name, boolean value) {
        set(fd, level, name, value ? 1 : 0);
    }

    /**
     * Sets any socket option by its numbers, as Netty's epoll and io_uring channels take them:
     * {@link IntegerUnixChannelOption} (an int) and {@link RawUnixChannelOption} (the bytes between the buffer's
     * position and limit; the buffer itself is not moved).
     *
     * @return whether {@code option} was one of those two (and is now set); false for any other option
     * @throws ChannelException naming the errno if the kernel refuses it
     */
    static boolean setUnixOption(int fd, ChannelOption<?> option, Object value) {
        if (option instanceof IntegerUnixChannelOption o) {
            set(fd, o.level(), o.optname(), (Integer) value);
            return true;
        }
        if (option instanceof RawUnixChannelOption o) {
            ByteBuffer b = ((ByteBuffer) value).duplicate();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            try {
                Sockets.setBytes(fd, o.level(), o.optname(), bytes);
            } catch (NativeIoException e) {
                throw failure(e);
            }
            return true;
        }
        return false;
    }

    /**
     * Reads an option set by {@link #setUnixOption}: an {@code Integer}, or for a {@link RawUnixChannelOption} a
     * heap buffer of its {@code length()} holding what the kernel wrote (zeros after, if it wrote fewer bytes), as
     * Netty's epoll channels return it.
     *
     * @return the value, or null if {@code option} is neither of those two
     * @throws ChannelException naming the errno if the kernel refuses it
     */
    static Object getUnixOption(int fd, ChannelOption<?> option) {
        if (option instanceof IntegerUnixChannelOption o) {
            return get(fd, o.level(), o.optname());
        }
        if (option instanceof RawUnixChannelOption o) {
            try {
                return ByteBuffer.allocate(o.length()).put(Sockets.getBytes(fd, o.level(), o.optname(), o.length()))
                    .clear();
            } catch (NativeIoException e) {
                throw failure(e);
            }
        }
        return null;
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
