package io.ringwire.lettuce;

import io.lettuce.core.ConnectionBuilder;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.BootstrapConfig;
import io.netty.channel.ChannelOption;
import io.netty.util.AttributeKey;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.util.Map;

/**
 * Puts a Lettuce connection's bootstrap on Ringwire's channel class. Lettuce picks the channel class itself, from its
 * static {@code Transports} (epoll, kqueue, io_uring or NIO, whichever it finds), in
 * {@code ConnectionBuilder.configureBootstrap}; Netty's bootstrap takes a channel class only once ("channelFactory set
 * already"), so a {@code NettyCustomizer} cannot change it afterwards. The clients of this package therefore give the
 * connection builder a new bootstrap, right after Lettuce configured its own: the same loops, options, attributes and
 * resolver, and Ringwire's channel class.
 */
final class RingwireBootstrap {
    /**
     * The TCP options Lettuce sets from its SocketOptions, by name (epoll's and io_uring's name them as Linux does, the
     * JDK's extended socket options otherwise), and Ringwire's options of the same meaning and unit.
     */
    private static final Map<String, ChannelOption<Integer>> CARRIED_OVER = Map.of(
        "TCP_USER_TIMEOUT", RingwireChannelOption.TCP_USER_TIMEOUT,
        "TCP_KEEPIDLE", RingwireChannelOption.TCP_KEEPIDLE,
        "TCP_KEEPINTVL", RingwireChannelOption.TCP_KEEPINTVL,
        "TCP_KEEPINTERVAL", RingwireChannelOption.TCP_KEEPINTVL,
        "TCP_KEEPCNT", RingwireChannelOption.TCP_KEEPCNT,
        "TCP_KEEPCOUNT", RingwireChannelOption.TCP_KEEPCNT);

    private RingwireBootstrap() { }

    /** @return whether the resources' event loops are Ringwire's (from {@link RingwireLettuce#customize}) */
    static boolean onRingwire(ClientResources resources) {
        return resources.eventLoopGroupProvider() instanceof RingwireEventLoopGroupProvider;
    }

    @SuppressWarnings("unchecked")
    static void useRingwireChannel(ConnectionBuilder connectionBuilder, RedisURI redisURI) {
        BootstrapConfig lettuces = connectionBuilder.bootstrap().config();
        boolean domainSocket = redisURI.getSocket() != null && !redisURI.getSocket().isEmpty();
        Bootstrap ringwire = new Bootstrap().group(lettuces.group())
            .channel(domainSocket ? RingwireDomainSocketChannel.class : RingwireSocketChannel.class);
        if (!domainSocket) {
            ringwire.resolver(lettuces.resolver());
        }
        for (Map.Entry<ChannelOption<?>, Object> option : lettuces.options().entrySet()) {
            // epoll's and io_uring's user-timeout and keep-alive options (or the JDK's extended ones on NIO) would be
            // unknown to Ringwire's channels, which would drop them with a warning: Ringwire's options take them
            ChannelOption<Integer> carried = ringwireOption(option.getKey());
            if (carried != null && option.getValue() instanceof Integer value) {
                ringwire.option(carried, value);
            } else {
                ringwire.option((ChannelOption<Object>) option.getKey(), option.getValue());
            }
        }
        for (Map.Entry<AttributeKey<?>, Object> attr : lettuces.attrs().entrySet()) {
            ringwire.attr((AttributeKey<Object>) attr.getKey(), attr.getValue());
        }
        connectionBuilder.bootstrap(ringwire);
    }

    /** @return Ringwire's option for another transport's option of the same name, or null */
    private static ChannelOption<Integer> ringwireOption(ChannelOption<?> option) {
        // epoll's and io_uring's options are named "<class>#NAME", NIO's by the JDK socket option's "NAME"
        ChannelOption<Integer> ringwire = CARRIED_OVER.get(option.name().substring(option.name().indexOf('#') + 1));
        return ringwire == option ? null : ringwire;
    }
}
