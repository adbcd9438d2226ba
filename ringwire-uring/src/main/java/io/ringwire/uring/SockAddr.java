package io.ringwire.uring;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Encodes and decodes {@code struct sockaddr_in} (16 bytes), {@code sockaddr_in6} (28) and {@code sockaddr_un}
 * (110) in native memory.
 *
 * <pre>
 * sockaddr_in  { sa_family_t family; in_port_t port (big-endian); struct in_addr addr; char zero[8]; }
 * sockaddr_in6 { sa_family_t family; in_port_t port; uint32_t flowinfo; struct in6_addr addr; uint32_t scope_id; }
 * sockaddr_un  { sa_family_t family; char path[108]; }
 * </pre>
 */
public final class SockAddr {
    private SockAddr() { }

    /** Big enough for any address ({@code sizeof(struct sockaddr_storage)}). */
    public static final int STORAGE_SIZE = 128;
    public static final int IN_SIZE = 16;
    public static final int IN6_SIZE = 28;
    public static final int UN_PATH_OFFSET = 2;
    public static final int UN_PATH_MAX = 108;

    /**
     * Writes an address.
     *
     * @param address an {@link InetSocketAddress} (resolved) or a {@link UnixDomainSocketAddress}
     * @param dst     at least {@link #STORAGE_SIZE} bytes
     * @param ipv6    whether the socket is AF_INET6 (an IPv4 address is then written IPv4-mapped, but for 0.0.0.0,
     *                the wildcard, which is written as {@code ::})
     * @return the address length to pass to the kernel
     */
    public static int write(SocketAddress address, MemorySegment dst, boolean ipv6) {
        dst.asSlice(0, STORAGE_SIZE).fill((byte) 0);
        if (address instanceof InetSocketAddress inet) {
            InetAddress ip = inet.getAddress();
            if (ip == null) {
                throw new IllegalArgumentException("unresolved address: " + inet);
            }
            short port = Short.reverseBytes((short) inet.getPort());
            byte[] bytes = ip.getAddress();
            if (!ipv6 && ip instanceof Inet4Address) {
                dst.set(JAVA_SHORT, 0, (short) SocketConstants.AF_INET);
                dst.set(JAVA_SHORT, 2, port);
                MemorySegment.copy(bytes, 0, dst, JAVA_BYTE, 4, 4);
                return IN_SIZE;
            }
            if (!ipv6) {
                throw new IllegalArgumentException("IPv6 address on an IPv4 socket: " + inet);
            }
            dst.set(JAVA_SHORT, 0, (short) SocketConstants.AF_INET6);
            dst.set(JAVA_SHORT, 2, port);
            if (ip.isAnyLocalAddress()) {
                // 0.0.0.0 on an AF_INET6 socket is its wildcard, ::, as in the JDK and Netty's native transports:
                // IPv4-mapped (::ffff:0.0.0.0) it would bind an IPv4-only socket, which no IPv6 peer reaches
                return IN6_SIZE;
            }
            if (bytes.length == 4) { // ::ffff:a.b.c.d
                dst.set(JAVA_BYTE, 8 + 10, (byte) 0xff);
                dst.set(JAVA_BYTE, 8 + 11, (byte) 0xff);
                MemorySegment.copy(bytes, 0, dst, JAVA_BYTE, 8 + 12, 4);
            } else {
                MemorySegment.copy(bytes, 0, dst, JAVA_BYTE, 8, 16);
                if (ip instanceof Inet6Address v6) {
                    dst.set(JAVA_INT, 24, v6.getScopeId());
                }
            }
            return IN6_SIZE;
        }
        if (address instanceof UnixDomainSocketAddress unix) {
            byte[] path = unix.getPath().toString().getBytes(StandardCharsets.UTF_8);
            if (path.length >= UN_PATH_MAX) {
                throw new IllegalArgumentException("unix socket path longer than " + (UN_PATH_MAX - 1)
                    + " bytes: " + unix.getPath());
            }
            dst.set(JAVA_SHORT, 0, (short) SocketConstants.AF_UNIX);
            MemorySegment.copy(path, 0, dst, JAVA_BYTE, UN_PATH_OFFSET, path.length);
            return UN_PATH_OFFSET + path.length + 1;
        }
        throw new IllegalArgumentException("unsupported address type: " + address);
    }

    /**
     * Writes a Unix domain socket address given as a string: a path, or an abstract name when it starts with a NUL
     * character (Linux's abstract namespace: no file, the name's bytes are the whole address, no terminator).
     *
     * @param path the path or {@code "\0name"}
     * @param dst  at least {@link #STORAGE_SIZE} bytes
     * @return the address length to pass to the kernel
     * @throws IllegalArgumentException if it does not fit in {@code sun_path}, or is empty
     */
    public static int writeUnix(String path, MemorySegment dst) {
        return writeUnix(unixPathBytes(path), dst);
    }

    /**
     * Writes a Unix domain socket address from bytes {@link #unixPathBytes} checked.
     *
     * @param p   the path's bytes, or {@code "\0name"}'s
     * @param dst at least {@link #STORAGE_SIZE} bytes
     * @return the address length to pass to the kernel
     */
    public static int writeUnix(byte[] p, MemorySegment dst) {
        boolean abstractName = p[0] == 0;
        dst.asSlice(0, STORAGE_SIZE).fill((byte) 0);
        dst.set(JAVA_SHORT, 0, (short) SocketConstants.AF_UNIX);
        MemorySegment.copy(p, 0, dst, JAVA_BYTE, UN_PATH_OFFSET, p.length);
        return UN_PATH_OFFSET + p.length + (abstractName ? 0 : 1);
    }

    /**
     * @param path the path or {@code "\0name"}
     * @return its bytes as {@code sun_path} takes them
     * @throws IllegalArgumentException if it does not fit in {@code sun_path}, or is empty
     */
    public static byte[] unixPathBytes(String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        boolean abstractName = p.length > 0 && p[0] == 0;
        if (p.length == 0 || p.length > (abstractName ? UN_PATH_MAX : UN_PATH_MAX - 1)) {
            throw new IllegalArgumentException("a unix socket " + (abstractName ? "abstract name" : "path")
                + " takes 1 to " + (abstractName ? UN_PATH_MAX : UN_PATH_MAX - 1) + " bytes, this one has "
                + p.length + ": " + path.replace("\0", "\\0"));
        }
        return p;
    }

    /**
     * Reads a Unix domain socket address the kernel wrote, as a string (see {@link #writeUnix}).
     *
     * @param src    the sockaddr_un
     * @param length the length the kernel reported
     * @return the path, {@code "\0name"} for an abstract name, or {@code null} for an unnamed socket
     */
    public static String readUnix(MemorySegment src, int length) {
        int n = length - UN_PATH_OFFSET;
        if (n <= 0) {
            return null;
        }
        byte[] p = new byte[n];
        MemorySegment.copy(src, JAVA_BYTE, UN_PATH_OFFSET, p, 0, n);
        if (p[0] == 0) {
            return n == 1 ? null : new String(p, 0, n, StandardCharsets.UTF_8); // abstract: every byte counts
        }
        int end = 0;
        while (end < n && p[end] != 0) {
            end++;
        }
        return new String(p, 0, end, StandardCharsets.UTF_8);
    }

    /**
     * Reads an address the kernel wrote.
     *
     * @param src    the sockaddr
     * @param length the length the kernel reported
     * @return the address, or {@code null} for an unnamed unix socket or AF_UNSPEC
     */
    public static SocketAddress read(MemorySegment src, int length) {
        int family = Short.toUnsignedInt(src.get(JAVA_SHORT, 0));
        try {
            switch (family) {
                case SocketConstants.AF_INET -> {
                    byte[] a = new byte[4];
                    MemorySegment.copy(src, JAVA_BYTE, 4, a, 0, 4);
                    return new InetSocketAddress(InetAddress.getByAddress(a), port(src));
                }
                case SocketConstants.AF_INET6 -> {
                    byte[] a = new byte[16];
                    MemorySegment.copy(src, JAVA_BYTE, 8, a, 0, 16);
                    int scope = src.get(JAVA_INT, 24);
                    InetAddress ip = isV4Mapped(a)
                        ? InetAddress.getByAddress(java.util.Arrays.copyOfRange(a, 12, 16))
                        : scope != 0 ? Inet6Address.getByAddress(null, a, scope) : InetAddress.getByAddress(a);
                    return new InetSocketAddress(ip, port(src));
                }
                case SocketConstants.AF_UNIX -> {
                    int n = length - UN_PATH_OFFSET;
                    if (n <= 0) {
                        return null;
                    }
                    byte[] p = new byte[n];
                    MemorySegment.copy(src, JAVA_BYTE, UN_PATH_OFFSET, p, 0, n);
                    int end = 0;
                    while (end < n && p[end] != 0) {
                        end++;
                    }
                    return end == 0 ? null : UnixDomainSocketAddress.of(new String(p, 0, end, StandardCharsets.UTF_8));
                }
                default -> {
                    return null;
                }
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("kernel wrote a malformed address", e);
        }
    }

    private static int port(MemorySegment src) {
        short networkOrder = src.get(JAVA_SHORT, 2);
        return Short.toUnsignedInt(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
            ? Short.reverseBytes(networkOrder) : networkOrder);
    }

    private static boolean isV4Mapped(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xff && a[11] == (byte) 0xff;
    }
}
