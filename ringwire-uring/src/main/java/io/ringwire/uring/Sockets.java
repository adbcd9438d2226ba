package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

import static io.ringwire.uring.SocketConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Socket set-up calls with exceptions at the edge: open, bind, listen, options, addresses. These run once per socket,
 * not per message, so each may allocate a little scratch memory.
 */
public final class Sockets {
    private Sockets() { }

    /**
     * Opens a non-blocking, close-on-exec socket.
     *
     * @param family {@code AF_INET}, {@code AF_INET6}, {@code AF_UNIX}
     * @param type   {@code SOCK_STREAM} or {@code SOCK_DGRAM}
     * @return the fd
     * @throws NativeIoException e.g. {@code EMFILE}
     */
    public static int open(int family, int type) throws NativeIoException {
        return NativeIoException.check(Libc.socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), "socket");
    }

    /**
     * @param fd      the socket
     * @param address the local address
     * @throws NativeIoException e.g. {@code EADDRINUSE}
     */
    public static void bind(int fd, SocketAddress address) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8);
            int len = SockAddr.write(address, sa, isIpv6(fd));
            NativeIoException.check(Libc.bind(fd, sa, len), "bind " + address);
        }
    }

    /**
     * @param fd      the socket
     * @param backlog accept queue length
     * @throws NativeIoException on failure
     */
    public static void listen(int fd, int backlog) throws NativeIoException {
        NativeIoException.check(Libc.listen(fd, backlog), "listen");
    }

    /**
     * @param fd    the socket
     * @param level {@code SOL_SOCKET}, {@code IPPROTO_TCP}, ...
     * @param name  the option
     * @param value its int value
     * @throws NativeIoException e.g. {@code ENOPROTOOPT}
     */
    public static void setInt(int fd, int level, int name, int value) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            v.set(JAVA_INT, 0, value);
            NativeIoException.check(Libc.setsockopt(fd, level, name, v, 4), "setsockopt(" + level + ", " + name + ")");
        }
    }

    /**
     * Reads an option whose value is a struct (e.g. {@code tcp_info}).
     *
     * @param fd     the socket
     * @param level  the level
     * @param name   the option
     * @param length the bytes to ask for
     * @return what the kernel wrote (possibly fewer bytes)
     * @throws NativeIoException on failure
     */
    public static byte[] getBytes(int fd, int level, int name, int length) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(length, 8);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, length);
            NativeIoException.check(Libc.getsockopt(fd, level, name, v, len),
                "getsockopt(" + level + ", " + name + ")");
            return v.asSlice(0, Math.min(length, len.get(JAVA_INT, 0))).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * Sets an option whose value is a struct, given as its bytes (e.g. {@code ip_mreqn}, {@code ipv6_mreq}).
     *
     * @param fd    the socket
     * @param level the level
     * @param name  the option
     * @param value the struct's bytes, in the kernel's layout
     * @throws NativeIoException e.g. {@code EADDRNOTAVAIL}
     */
    public static void setBytes(int fd, int level, int name, byte[] value) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(Math.max(value.length, 1), 8);
            MemorySegment.copy(value, 0, v, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, value.length);
            NativeIoException.check(Libc.setsockopt(fd, level, name, v, value.length),
                "setsockopt(" + level + ", " + name + ")");
        }
    }

    /**
     * A source-specific multicast operation: {@code setsockopt} with a {@code struct group_source_req} (the interface's
     * index, then the group's and the source's {@code sockaddr_storage}), at {@code IPPROTO_IP} for an IPv4 group (an
     * AF_INET6 socket takes it there too) and {@code IPPROTO_IPV6} for an IPv6 one.
     *
     * @param fd      the socket
     * @param name    {@link SocketConstants#MCAST_JOIN_SOURCE_GROUP}, {@link SocketConstants#MCAST_LEAVE_SOURCE_GROUP},
     *                {@link SocketConstants#MCAST_BLOCK_SOURCE} or {@link SocketConstants#MCAST_UNBLOCK_SOURCE}
     * @param group   the group
     * @param ifindex the interface's index; 0 lets the kernel choose by the group's route
     * @param source  the source, of the group's family
     * @throws NativeIoException e.g. {@code EADDRNOTAVAIL} (leaving what was not joined), {@code EINVAL} (blocking a
     *                           source of a group not joined for any source)
     * @throws IllegalArgumentException if the source's family is not the group's
     */
    public static void setGroupSource(int fd, int name, java.net.InetAddress group, int ifindex,
                                      java.net.InetAddress source) throws NativeIoException {
        boolean v6 = group instanceof Inet6Address;
        if (v6 != source instanceof Inet6Address) {
            throw new IllegalArgumentException("source " + source + " is not of group " + group + "'s family");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(GROUP_SOURCE_REQ_SIZE, 8);
            req.set(JAVA_INT, 0, ifindex);
            SockAddr.write(new InetSocketAddress(group, 0), req.asSlice(8, SockAddr.STORAGE_SIZE), v6);
            SockAddr.write(new InetSocketAddress(source, 0), req.asSlice(8 + SockAddr.STORAGE_SIZE,
                SockAddr.STORAGE_SIZE), v6);
            NativeIoException.check(Libc.setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, name, req,
                GROUP_SOURCE_REQ_SIZE), "setsockopt(" + mcastName(name) + ", group " + group.getHostAddress()
                + ", source " + source.getHostAddress() + ", interface " + ifindex + ")");
        }
    }

    /**
     * Sets or removes the TCP MD5 signature key (RFC 2385) for one peer address: {@code setsockopt(IPPROTO_TCP,
     * TCP_MD5SIG)} with a {@code struct tcp_md5sig}. On an AF_INET6 socket an IPv4 peer is written IPv4-mapped, as
     * the kernel sees it there.
     *
     * @param fd      a TCP socket (a listener's keys pass to the connections it accepts)
     * @param ipv6    whether the socket is AF_INET6
     * @param address the peer
     * @param key     1 to {@link SocketConstants#TCP_MD5SIG_MAXKEYLEN} bytes, or null to remove the peer's key
     * @throws NativeIoException e.g. {@code ENOENT} (removing a key that is not there)
     * @throws IllegalArgumentException a key too long or empty, an IPv6 peer on an IPv4 socket
     */
    public static void setTcpMd5Sig(int fd, boolean ipv6, java.net.InetAddress address, byte[] key)
        throws NativeIoException {
        byte[] sig = tcpMd5Sig(ipv6, address, key);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(TCP_MD5SIG_SIZE, 8);
            MemorySegment.copy(sig, 0, v, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, sig.length);
            NativeIoException.check(Libc.setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, v, TCP_MD5SIG_SIZE),
                "setsockopt(TCP_MD5SIG, " + address.getHostAddress() + (key == null ? ", removed)" : ")"));
        }
    }

    /**
     * The {@code struct tcp_md5sig} that sets or removes the TCP MD5 signature key for one peer address, for a
     * {@code setsockopt(IPPROTO_TCP, TCP_MD5SIG)} made some other way (see {@link #setTcpMd5Sig}).
     *
     * @param ipv6    whether the socket is AF_INET6
     * @param address the peer
     * @param key     1 to {@link SocketConstants#TCP_MD5SIG_MAXKEYLEN} bytes, or null to remove the peer's key
     * @return the struct's bytes
     * @throws IllegalArgumentException a key too long or empty, an IPv6 peer on an IPv4 socket
     */
    public static byte[] tcpMd5Sig(boolean ipv6, java.net.InetAddress address, byte[] key) {
        if (key != null && (key.length == 0 || key.length > TCP_MD5SIG_MAXKEYLEN)) {
            throw new IllegalArgumentException("a TCP_MD5SIG key is 1 to " + TCP_MD5SIG_MAXKEYLEN + " bytes: "
                + key.length + " for " + address);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sig = a.allocate(TCP_MD5SIG_SIZE, 8);
            SockAddr.write(new InetSocketAddress(address, 0), sig, ipv6);
            if (key != null) {
                sig.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 130, (short) key.length);
                MemorySegment.copy(key, 0, sig, java.lang.foreign.ValueLayout.JAVA_BYTE, 136, key.length);
            }
            return sig.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    private static String mcastName(int name) {
        return switch (name) {
            case MCAST_JOIN_SOURCE_GROUP -> "MCAST_JOIN_SOURCE_GROUP";
            case MCAST_LEAVE_SOURCE_GROUP -> "MCAST_LEAVE_SOURCE_GROUP";
            case MCAST_BLOCK_SOURCE -> "MCAST_BLOCK_SOURCE";
            case MCAST_UNBLOCK_SOURCE -> "MCAST_UNBLOCK_SOURCE";
            default -> String.valueOf(name);
        };
    }

    /**
     * @param fd    the socket
     * @param level the level
     * @param name  the option
     * @return its int value
     * @throws NativeIoException on failure
     */
    public static int getInt(int fd, int level, int name) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 4);
            NativeIoException.check(Libc.getsockopt(fd, level, name, v, len), "getsockopt(" + level + ", " + name + ")");
            return v.get(JAVA_INT, 0);
        }
    }

    /**
     * {@code SO_LINGER}; {@code (true, 0)} makes close send RST.
     *
     * @param fd      the socket
     * @param on      whether linger is on
     * @param seconds linger time
     * @throws NativeIoException on failure
     */
    public static void setLinger(int fd, boolean on, int seconds) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(8, 4); // struct linger { int l_onoff; int l_linger; }
            v.set(JAVA_INT, 0, on ? 1 : 0);
            v.set(JAVA_INT, 4, seconds);
            NativeIoException.check(Libc.setsockopt(fd, SOL_SOCKET, SO_LINGER, v, 8), "setsockopt(SO_LINGER)");
        }
    }

    /**
     * @param fd the socket
     * @return SO_LINGER's seconds, or -1 when off
     * @throws NativeIoException on failure
     */
    public static int getLinger(int fd) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(8, 4);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 8);
            NativeIoException.check(Libc.getsockopt(fd, SOL_SOCKET, SO_LINGER, v, len), "getsockopt(SO_LINGER)");
            return v.get(JAVA_INT, 0) == 0 ? -1 : v.get(JAVA_INT, 4);
        }
    }

    /**
     * @param fd the socket
     * @return its local address
     * @throws NativeIoException on failure
     */
    public static SocketAddress localAddress(int fd) throws NativeIoException {
        return address(fd, true);
    }

    /**
     * @param fd the socket
     * @return its peer's address
     * @throws NativeIoException e.g. {@code ENOTCONN}
     */
    public static SocketAddress remoteAddress(int fd) throws NativeIoException {
        return address(fd, false);
    }

    private static SocketAddress address(int fd, boolean local) throws NativeIoException {
        return name(fd, local, SockAddr::read);
    }

    /** A reader of the sockaddr the kernel wrote, and its length. */
    private interface NameReader<T> {
        T read(MemorySegment sockaddr, int length);
    }

    /** getsockname or getpeername into scratch memory, read by {@code reader} before it is freed. */
    private static <T> T name(int fd, boolean local, NameReader<T> reader) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, SockAddr.STORAGE_SIZE);
            int ret = local ? Libc.getsockname(fd, sa, len) : Libc.getpeername(fd, sa, len);
            NativeIoException.check(ret, local ? "getsockname" : "getpeername");
            return reader.read(sa, len.get(JAVA_INT, 0));
        }
    }

    /**
     * Binds a Unix domain socket.
     *
     * @param fd   an AF_UNIX socket
     * @param path a path, or an abstract name starting with NUL (see {@link SockAddr#writeUnix})
     * @throws NativeIoException e.g. {@code EADDRINUSE}
     */
    public static void bindUnix(int fd, String path) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8);
            int len = SockAddr.writeUnix(path, sa);
            NativeIoException.check(Libc.bind(fd, sa, len), "bind " + path.replace("\0", "@"));
        }
    }

    /**
     * @param fd    an AF_UNIX socket
     * @param local its own address, or its peer's
     * @return the path or abstract name (see {@link SockAddr#readUnix}), or null if unnamed
     * @throws NativeIoException e.g. {@code ENOTCONN}
     */
    public static String unixAddress(int fd, boolean local) throws NativeIoException {
        return name(fd, local, SockAddr::readUnix);
    }

    /**
     * {@code SO_PEERCRED}: who is at the other end of a Unix domain socket (as of connect or listen).
     *
     * @param fd a connected AF_UNIX socket
     * @return {pid, uid, gid}
     * @throws NativeIoException on failure
     */
    public static int[] peerCredentials(int fd) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(12, 4); // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 12);
            NativeIoException.check(Libc.getsockopt(fd, SOL_SOCKET, SocketConstants.SO_PEERCRED, v, len),
                "getsockopt(SO_PEERCRED)");
            return new int[] {v.get(JAVA_INT, 0), v.get(JAVA_INT, 4), v.get(JAVA_INT, 8)};
        }
    }

    /**
     * @param fd the socket
     * @return whether it is AF_INET6
     * @throws NativeIoException on failure
     */
    public static boolean isIpv6(int fd) throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE_SIZE, 8);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, SockAddr.STORAGE_SIZE);
            NativeIoException.check(Libc.getsockname(fd, sa, len), "getsockname");
            return Short.toUnsignedInt(sa.get(java.lang.foreign.ValueLayout.JAVA_SHORT, 0)) == AF_INET6;
        }
    }

    /**
     * @param fd  the socket
     * @param how {@code SHUT_RD}, {@code SHUT_WR}, {@code SHUT_RDWR}
     * @throws NativeIoException e.g. {@code ENOTCONN}
     */
    public static void shutdown(int fd, int how) throws NativeIoException {
        NativeIoException.check(Libc.shutdown(fd, how), "shutdown");
    }

    /**
     * Closes a descriptor.
     *
     * @param fd the descriptor
     * @throws NativeIoException e.g. {@code EBADF}
     */
    public static void close(int fd) throws NativeIoException {
        NativeIoException.check(Libc.close(fd), "close");
    }
}
