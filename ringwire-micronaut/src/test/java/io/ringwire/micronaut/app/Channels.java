package io.ringwire.micronaut.app;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.client.netty.NettyClientCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.Channel;
import jakarta.inject.Singleton;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The channel classes the application's server and HTTP clients used, recorded through Micronaut's extension points
 * for them ({@link NettyServerCustomizer}, {@link NettyClientCustomizer}).
 */
@Singleton
public class Channels {
    public final Set<Class<?>> bound = ConcurrentHashMap.newKeySet();
    public final Set<Class<?>> accepted = ConcurrentHashMap.newKeySet();
    public final Set<Class<?>> connected = ConcurrentHashMap.newKeySet();

    /** Registers the server's recorder. */
    @Singleton
    static class Server implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {
        private final Channels channels;

        Server(Channels channels) {
            this.channels = channels;
        }

        @Override
        public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
            event.getBean().register(new NettyServerCustomizer() {
                @Override
                public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
                    if (role == ChannelRole.LISTENER) {
                        channels.bound.add(channel.getClass());
                    } else if (role == ChannelRole.CONNECTION) {
                        channels.accepted.add(channel.getClass());
                    }
                    return this;
                }
            });
            return event.getBean();
        }
    }

    /** Registers the clients' recorder. */
    @Singleton
    static class Client implements BeanCreatedEventListener<NettyClientCustomizer.Registry> {
        private final Channels channels;

        Client(Channels channels) {
            this.channels = channels;
        }

        @Override
        public NettyClientCustomizer.Registry onCreated(BeanCreatedEvent<NettyClientCustomizer.Registry> event) {
            event.getBean().register(new NettyClientCustomizer() {
                @Override
                public NettyClientCustomizer specializeForChannel(Channel channel, ChannelRole role) {
                    if (role == ChannelRole.CONNECTION) {
                        channels.connected.add(channel.getClass());
                    }
                    return this;
                }
            });
            return event.getBean();
        }
    }
}
