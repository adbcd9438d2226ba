package io.ringwire.transport;

import io.netty.channel.ChannelOption;

/**
 * Ringwire's own {@link ChannelOption}s, beside Netty's standard ones (which Ringwire's configs also honour).
 *
 * @param <T> the option's value type
 */
public final class RingwireChannelOption<T> extends ChannelOption<T> {
    /** {@code SO_REUSEPORT}: several sockets, e.g. one per event loop, listen on one port. */
    public static final ChannelOption<Boolean> SO_REUSEPORT = valueOf(RingwireChannelOption.class, "SO_REUSEPORT");
    /** {@code TCP_QUICKACK}: acknowledge at once instead of delaying. */
    public static final ChannelOption<Boolean> TCP_QUICKACK = valueOf(RingwireChannelOption.class, "TCP_QUICKACK");

    /**
     * {@code TCP_USER_TIMEOUT}, milliseconds: how long sent data may stay unacknowledged before the connection is
     * dropped with ETIMEDOUT; how a server notices a peer that vanished (half-open) while it writes (0: the kernel's
     * default, about 15 minutes of retransmissions). gRPC's keepalive sets it on Netty's epoll transport.
     */
    public static final ChannelOption<Integer> TCP_USER_TIMEOUT = valueOf(RingwireChannelOption.class,
        "TCP_USER_TIMEOUT");
    /** {@code TCP_KEEPIDLE}, seconds of idleness before the first keepalive probe (with {@code SO_KEEPALIVE}). */
    public static final ChannelOption<Integer> TCP_KEEPIDLE = valueOf(RingwireChannelOption.class, "TCP_KEEPIDLE");
    /** {@code TCP_KEEPINTVL}, seconds between keepalive probes. */
    public static final ChannelOption<Integer> TCP_KEEPINTVL = valueOf(RingwireChannelOption.class,
        "TCP_KEEPINTVL");
    /** {@code TCP_KEEPCNT}: unanswered keepalive probes before the connection is dropped. */
    public static final ChannelOption<Integer> TCP_KEEPCNT = valueOf(RingwireChannelOption.class, "TCP_KEEPCNT");
    /**
     * {@code TCP_CORK}: partial segments wait until the cork is taken out (or 200 ms pass), so that what several
     * flushes write leaves in full segments.
     */
    public static final ChannelOption<Boolean> TCP_CORK = valueOf(RingwireChannelOption.class, "TCP_CORK");
    /**
     * {@code TCP_NOTSENT_LOWAT}, bytes (an unsigned 32-bit value): the socket counts as writable, and takes more,
     * only while fewer bytes than this wait unsent in it.
     */
    public static final ChannelOption<Long> TCP_NOTSENT_LOWAT = valueOf(RingwireChannelOption.class,
        "TCP_NOTSENT_LOWAT");
    /** {@code TCP_DEFER_ACCEPT}, seconds a listener waits for a connection's first data before accepting it. */
    public static final ChannelOption<Integer> TCP_DEFER_ACCEPT = valueOf(RingwireChannelOption.class,
        "TCP_DEFER_ACCEPT");

    // The next eight, IP_FREEBIND to TCP_MD5SIG, are the very constants of Netty's epoll and io_uring transports (one
    // name in Netty's pool of options): bootstrap code that sets EpollChannelOption.IP_FREEBIND sets this.

    /** {@code IP_FREEBIND}: bind an address that is not (yet) the host's. */
    public static final ChannelOption<Boolean> IP_FREEBIND = valueOf("IP_FREEBIND");
    /**
     * {@code IP_TRANSPARENT}: bind and accept for addresses that are not the host's (transparent proxying, with the
     * firewall's TPROXY rules); needs CAP_NET_ADMIN, else setting it fails with EPERM.
     */
    public static final ChannelOption<Boolean> IP_TRANSPARENT = valueOf("IP_TRANSPARENT");
    /**
     * {@code IP_BIND_ADDRESS_NO_PORT}: a client bound to an address with port 0 gets its port at connect, chosen by
     * the whole 4-tuple, so one source address serves more than 64k connections to different peers.
     */
    public static final ChannelOption<Boolean> IP_BIND_ADDRESS_NO_PORT = valueOf("IP_BIND_ADDRESS_NO_PORT");
    /**
     * {@code IP_MULTICAST_ALL}: a datagram socket receives every group joined on the host (the kernel's default), or
     * only those it joined itself.
     */
    public static final ChannelOption<Boolean> IP_MULTICAST_ALL = valueOf("IP_MULTICAST_ALL");
    /**
     * {@code UDP_GRO} (UDP channels): the kernel may hand several datagrams of one sender, of one size (the last may
     * be shorter), to one receive, as a sender's GSO sent them; the channel passes them up one
     * {@link io.netty.channel.socket.DatagramPacket} each, sharing the receive's buffer. Such a receive can hold up
     * to 64 KiB: give the channel a {@link io.netty.channel.RecvByteBufAllocator} that large, or a batch that does
     * not fit is dropped and reported ({@link DatagramTruncatedException}). With it on, receives go straight into
     * the allocator's buffers, not through the loop's buffer ring.
     */
    public static final ChannelOption<Boolean> UDP_GRO = valueOf("UDP_GRO");
    /**
     * {@code IP_RECVORIGDSTADDR} (UDP channels; on an IPv6 socket {@code IPV6_RECVORIGDSTADDR} too): each received
     * {@link io.netty.channel.socket.DatagramPacket}'s {@code recipient()} is the address and port the datagram was
     * sent to (which of a wildcard-bound socket's addresses, or the original destination a TPROXY rule redirected),
     * instead of the channel's local address. With it on, receives go straight into the allocator's buffers with a
     * control buffer, not through the loop's buffer ring (one receive in flight at a time). The same constant as
     * Netty's {@code EpollChannelOption.IP_RECVORIGDSTADDR}.
     */
    public static final ChannelOption<Boolean> IP_RECVORIGDSTADDR = valueOf("IP_RECVORIGDSTADDR");
    /**
     * The largest datagram a UDP channel expects, bytes; 0 (the default): as large as its
     * {@link io.netty.channel.RecvByteBufAllocator}'s buffers. Receives come from the loop's shared buffer ring
     * while its buffers hold a datagram of this size (and straight into the allocator's buffers otherwise), so a
     * channel whose allocator gives large buffers, for the odd large datagram, still receives the usual ones from
     * the ring. A datagram larger than the buffer it arrives in is dropped and reported
     * ({@link DatagramTruncatedException}), never cut.
     */
    public static final ChannelOption<Integer> MAX_DATAGRAM_PAYLOAD_SIZE = valueOf("MAX_DATAGRAM_PAYLOAD_SIZE");

    /**
     * {@code TCP_MD5SIG} (TCP channels, server and client): RFC 2385 signatures, as BGP speakers use them: per peer
     * address, the key (1 to 80 bytes) the kernel signs each segment with and checks each segment from that peer
     * against; segments from a peer with a key that do not carry its signature are dropped, so a connection is made
     * only when both ends hold the same key. Setting it replaces the channel's whole set (an empty map removes every
     * key); a server's keys hold for the connections it accepts. Set a client's before connect. Not readable back
     * (a key is a secret): {@code getOption} gives null, as on Netty's epoll transport, whose
     * {@code EpollChannelOption.TCP_MD5SIG} is this very constant.
     */
    public static final ChannelOption<java.util.Map<java.net.InetAddress, byte[]>> TCP_MD5SIG =
        valueOf("TCP_MD5SIG");

    /**
     * Bytes from which a TCP write goes as a zero-copy send (SEND_ZC / SENDMSG_ZC, Linux 6.1): the kernel sends from
     * the buffers' own pages, which stay retained until its notification says it is done with them. 0 (the default,
     * or {@code -Dringwire.sendZcThreshold}) sends with a copy. Zero copy saves the copy only when the bytes leave
     * through a device that sends from user pages; on loopback (and veth) the kernel copies anyway, and the
     * notification says so: the channel then sends with a copy from there on ({@link RingwireCounters#zeroCopyCopied}).
     * A kernel that refuses it (no SEND_ZC, EOPNOTSUPP, ENOMEM from the memory-lock limit) gets a copying send instead.
     * The write's future completes with the send, as for a copying one, while the kernel may still read the pages until
     * its notification: the channel keeps the buffer until then, but a buffer the application retained and changes
     * after the future completes may go out changed.
     */
    public static final ChannelOption<Integer> SEND_ZC_THRESHOLD = valueOf(RingwireChannelOption.class,
        "SEND_ZC_THRESHOLD");

    @SuppressWarnings("deprecation")
    private RingwireChannelOption() {
        super(null);
    }
}
