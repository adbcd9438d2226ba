package io.ringwire.lettuce;

import io.lettuce.core.ConnectionBuilder;
import io.lettuce.core.ConnectionEvents;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import reactor.core.publisher.Mono;

import java.net.SocketAddress;

/** A Lettuce {@link RedisClusterClient} whose connections to every node (and its topology refresh) run on Ringwire. */
final class RingwireRedisClusterClient extends RedisClusterClient {
    RingwireRedisClusterClient(ClientResources clientResources, Iterable<RedisURI> redisURIs) {
        super(clientResources, redisURIs);
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
