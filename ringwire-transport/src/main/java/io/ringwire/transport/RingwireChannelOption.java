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

    @SuppressWarnings("deprecation")
    private RingwireChannelOption() {
        super(null);
    }
}
