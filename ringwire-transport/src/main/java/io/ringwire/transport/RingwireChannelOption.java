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

    @SuppressWarnings("deprecation")
    private RingwireChannelOption() {
        super(null);
    }
}
