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
