package io.ringwire.uring;

/**
 * Socket constants for Linux x86_64 ({@code <sys/socket.h>}, {@code <netinet/in.h>}, {@code <netinet/tcp.h>},
 * {@code <poll.h>}), for the socket calls in {@link Libc} and {@link Sockets}.
 */
public final class SocketConstants {
    private SocketConstants() { }

    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;

    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_TYPE = 3;
    public static final int SO_ERROR = 4;
    public static final int SO_BROADCAST = 6;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_KEEPALIVE = 9;
    public static final int SO_LINGER = 13;
    /** getsockopt: the peer's address, as getpeername gives it (optlen must not exceed its length: EINVAL). */
    public static final int SO_PEERNAME = 28;
    public static final int SO_REUSEPORT = 15;
    public static final int SO_RCVLOWAT = 18;
    public static final int SO_PEERCRED = 17;

    public static final int IPPROTO_IP = 0;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;
    public static final int IPPROTO_IPV6 = 41;
    public static final int IP_TOS = 1;
    public static final int IP_MULTICAST_IF = 32;
    /** Bind an address now, choose the port at connect (by the whole 4-tuple): many clients per source address. */
    public static final int IP_BIND_ADDRESS_NO_PORT = 24;
    public static final int IP_MULTICAST_TTL = 33;
    /** Bind an address that is not (yet) the host's. */
    public static final int IP_FREEBIND = 15;
    /** Bind and accept for any address (transparent proxying, with TPROXY rules); needs CAP_NET_ADMIN. */
    public static final int IP_TRANSPARENT = 19;
    /**
     * A recvmsg control message with the datagram's original destination (a sockaddr_in): where it was sent, also
     * when a TPROXY rule delivered it to this socket; IP_ORIGDSTADDR, the message's type, has the same value.
     */
    public static final int IP_RECVORIGDSTADDR = 20;
    /** The same for IPv6 (a sockaddr_in6); IPV6_ORIGDSTADDR has the same value. */
    public static final int IPV6_RECVORIGDSTADDR = 74;
    /** Whether a multicast socket receives every group joined on the host, or only its own (0). */
    public static final int IP_MULTICAST_ALL = 49;
    public static final int IP_ADD_MEMBERSHIP = 35;
    public static final int IP_DROP_MEMBERSHIP = 36;
    public static final int IPV6_MULTICAST_IF = 17;
    public static final int IPV6_ADD_MEMBERSHIP = 20;
    public static final int IPV6_DROP_MEMBERSHIP = 21;
    /** Protocol-independent multicast source filters (levels IPPROTO_IP and IPPROTO_IPV6), with a group_source_req. */
    public static final int MCAST_BLOCK_SOURCE = 43;
    public static final int MCAST_UNBLOCK_SOURCE = 44;
    public static final int MCAST_JOIN_SOURCE_GROUP = 46;
    public static final int MCAST_LEAVE_SOURCE_GROUP = 47;
    /** sizeof(struct group_source_req) on LP64: u32 interface, 4 bytes of padding, two sockaddr_storage. */
    public static final int GROUP_SOURCE_REQ_SIZE = 8 + 128 + 128;
    public static final int IP_MULTICAST_LOOP = 34;
    public static final int IPV6_MULTICAST_HOPS = 18;
    public static final int IPV6_MULTICAST_LOOP = 19;
    public static final int IPV6_V6ONLY = 26;
    public static final int IPV6_TCLASS = 67;
    public static final int TCP_NODELAY = 1;
    public static final int TCP_CORK = 3;
    /** Seconds a listener waits for a connection's first data before accept sees it. */
    public static final int TCP_DEFER_ACCEPT = 9;
    public static final int TCP_KEEPIDLE = 4;
    public static final int TCP_KEEPINTVL = 5;
    public static final int TCP_KEEPCNT = 6;
    public static final int TCP_QUICKACK = 12;
    public static final int TCP_USER_TIMEOUT = 18;
    public static final int TCP_INFO = 11;
    public static final int TCP_FASTOPEN = 23;
    public static final int TCP_FASTOPEN_CONNECT = 30;
    public static final int TCP_NOTSENT_LOWAT = 25;
    /** RFC 2385 signatures: a struct tcp_md5sig, one peer address and its key (key length 0 removes it). */
    public static final int TCP_MD5SIG = 14;
    public static final int TCP_MD5SIG_MAXKEYLEN = 80;
    /** sizeof(struct tcp_md5sig): sockaddr_storage, flags, prefix length, u16 key length, int ifindex, the key. */
    public static final int TCP_MD5SIG_SIZE = 128 + 1 + 1 + 2 + 4 + TCP_MD5SIG_MAXKEYLEN;

    /** Level IPPROTO_UDP (SOL_UDP): a sendmsg control message, one datagram cut into segments of this size (GSO). */
    public static final int UDP_SEGMENT = 103;
    /** Level IPPROTO_UDP: the option that lets the kernel coalesce datagrams (GRO), and its recvmsg control message. */
    public static final int UDP_GRO = 104;

    public static final int SHUT_RD = 0;
    public static final int SHUT_WR = 1;
    public static final int SHUT_RDWR = 2;

    public static final int MSG_PEEK = 0x2;
    /** recvmsg: the control buffer was too small, control data (e.g. passed descriptors) dropped. */
    public static final int MSG_CTRUNC = 0x8;
    public static final int MSG_TRUNC = 0x20;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_WAITALL = 0x100;
    public static final int MSG_NOSIGNAL = 0x4000;
    /** recvmsg: descriptors received with SCM_RIGHTS are close-on-exec. */
    public static final int MSG_CMSG_CLOEXEC = 0x40000000;
    /** cmsg_type (level SOL_SOCKET) of descriptors passed over a Unix domain socket. */
    public static final int SCM_RIGHTS = 1;

    public static final int POLLIN = 0x1;
    public static final int POLLPRI = 0x2;
    public static final int POLLOUT = 0x4;
    public static final int POLLERR = 0x8;
    public static final int POLLHUP = 0x10;
    public static final int POLLRDHUP = 0x2000;

    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;
}
