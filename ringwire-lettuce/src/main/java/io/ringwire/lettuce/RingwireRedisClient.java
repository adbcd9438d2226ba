package io.ringwire.lettuce;

import io.lettuce.core.ConnectionBuilder;
import io.lettuce.core.ConnectionEvents;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import reactor.core.publisher.Mono;

import java.net.SocketAddress;

/** A Lettuce {@link RedisClient} whose connections (standalone, pub/sub, Sentinel) open Ringwire's channels. */
final class RingwireRedisClient extends RedisClient {
    RingwireRedisClient(ClientResources clientResources, RedisURI redisURI) {
        super(clientResources, redisURI);
    }

    @Override
    protected void connectionBuilder(Mono<SocketAddress> socketAddressSupplier, ConnectionBuilder connectionBuilder,
                                     ConnectionEvents connectionEvents, RedisURI redisURI) {
        // Lettuce allocates the client's event loops here: Ringwire's, from resources of RingwireLettuce's
        RingwireEventLoopGroupProvider.forRingwire(() ->
            super.connectionBuilder(socketAddressSupplier, connectionBuilder, connectionEvents, redisURI));
        RingwireBootstrap.useRingwireChannel(connectionBuilder, redisURI);
    }
}
