package io.ringwire.micronaut;

import io.micronaut.context.annotation.BootstrapContextCompatible;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.netty.channel.EventLoopGroupConfiguration;
import io.micronaut.http.netty.channel.EventLoopGroupFactory;
import io.micronaut.http.netty.channel.NettyChannelType;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

/**
 * Ringwire as a Micronaut Netty transport, named {@value #NAME} beside Micronaut's own {@code io_uring},
 * {@code epoll}, {@code kqueue} and {@code nio}. Micronaut runs an event-loop group on the first transport of its
 * {@code transport} list that is available, so an application chooses Ringwire, with a fallback, in its
 * configuration:
 *
 * <pre>
 * micronaut.netty.event-loops.default.transport=ringwire,nio
 * micronaut.server.netty.parent.event-loop-group=default
 * </pre>
 *
 * The first line puts the default group (the server's connections and the HTTP client's) on Ringwire, and on NIO
 * where Ringwire cannot run ({@code ringwire,epoll,nio} tries Netty's epoll in between, if its native transport is on
 * the class path); the second
 * has the server accept on that group too (Micronaut otherwise makes a separate accepting group, on {@code nio}
 * unless its own {@code transport} says otherwise, and a Ringwire server channel cannot register there).
 *
 * <p>Where Ringwire cannot run (no io_uring, a kernel older than 6.1, a seccomp profile that blocks it,
 * {@code -Dringwire.disable=true}) this transport is not offered, Micronaut takes the next in the list, and one line
 * in the log says why ({@link RingwireAvailableCondition}, which asks {@code Ringwire.bestTransport()}). The list
 * {@code ringwire,epoll,nio} is that call's own order: Ringwire, else Netty's epoll, else NIO. Each loop's ring has Ringwire's default settings, or
 * those given as system properties ({@code -Dringwire.ringEntries=...}, see {@link RingwireIoHandlerConfig}).
 */
@Singleton
@Named(RingwireEventLoopGroupFactory.NAME)
@Requires(condition = RingwireAvailableCondition.class)
@BootstrapContextCompatible
public class RingwireEventLoopGroupFactory implements EventLoopGroupFactory {
    /** The transport's name in Micronaut's {@code transport} lists. */
    public static final String NAME = "ringwire";

    private final RingwireIoHandlerConfig config = RingwireIoHandlerConfig.builder().build();

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public IoHandlerFactory createIoHandlerFactory() {
        return RingwireIoHandler.newFactory(config);
    }

    @Override
    public IoHandlerFactory createIoHandlerFactory(EventLoopGroupConfiguration configuration) {
        return createIoHandlerFactory();
    }

    @Override
    public Class<? extends Channel> channelClass(NettyChannelType type) {
        return switch (type) {
            case SERVER_SOCKET -> RingwireServerSocketChannel.class;
            case CLIENT_SOCKET -> RingwireSocketChannel.class;
            case DOMAIN_SOCKET -> RingwireDomainSocketChannel.class;
            case DOMAIN_SERVER_SOCKET -> RingwireServerDomainSocketChannel.class;
            case DATAGRAM_SOCKET -> RingwireDatagramChannel.class;
        };
    }

    @Override
    public Class<? extends Channel> channelClass(NettyChannelType type,
                                                 @Nullable EventLoopGroupConfiguration configuration) {
        return channelClass(type);
    }

    @Override
    public Channel channelInstance(NettyChannelType type, @Nullable EventLoopGroupConfiguration configuration) {
        return switch (type) {
            case SERVER_SOCKET -> new RingwireServerSocketChannel();
            case CLIENT_SOCKET -> new RingwireSocketChannel();
            case DOMAIN_SOCKET -> new RingwireDomainSocketChannel();
            case DOMAIN_SERVER_SOCKET -> new RingwireServerDomainSocketChannel();
            case DATAGRAM_SOCKET -> new RingwireDatagramChannel();
        };
    }
}
