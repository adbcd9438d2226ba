package io.ringwire.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.ringwire.transport.Ringwire;

/**
 * Lettuce on Ringwire: client resources whose event loops are Ringwire's, and clients whose connections open
 * Ringwire's channels on them. Standalone, pub/sub, pipelined and cluster connections, reconnects and TLS all go
 * through them:
 *
 * <pre>{@code
 * ClientResources resources = RingwireLettuce.clientResources();
 * RedisClient client = RingwireLettuce.redisClient(resources, RedisURI.create("redis://127.0.0.1:6379"));
 * // ... client.shutdown(); resources.shutdown();
 * }</pre>
 *
 * The loops come through Lettuce's own extension point ({@code ClientResources.Builder.eventLoopGroupProvider}); the
 * channel class cannot: Lettuce takes it from its static {@code io.lettuce.core.resource.Transports} in
 * {@code ConnectionBuilder.configureBootstrap}, and Netty's bootstrap refuses a second one, so a {@code NettyCustomizer}
 * cannot change it. The clients here are Lettuce's own {@link RedisClient} and {@link RedisClusterClient}, overriding
 * their protected {@code connectionBuilder} method to give each connection a bootstrap with Ringwire's channel class.
 * A client Lettuce makes itself on these resources ({@code RedisClient.create(resources, uri)}) gets Lettuce's own event
 * loops from them, made when it first connects, and runs on Lettuce's transport.
 *
 * <p>Where Ringwire is unavailable ({@link Ringwire#isAvailable()} false) all of this leaves Lettuce as it is: its
 * default resources, its own clients and transport, so the same code runs everywhere.
 *
 * <p>Unix domain sockets ({@code redis-socket:} URIs): Lettuce refuses them unless Netty's native epoll (or kqueue)
 * transport is loadable ({@code Transports.NativeTransports.assertDomainSocketAvailable}) and makes their address with
 * it ({@code SocketAddressResolver}); where it is, the connection runs on Ringwire's domain socket channel.
 */
public final class RingwireLettuce {
    private RingwireLettuce() { }

    /**
     * @return new client resources on Ringwire's event loops, as many as Lettuce's default number of I/O threads, or
     *     Lettuce's default resources where Ringwire is unavailable; shut them down after the clients that use them
     */
    public static ClientResources clientResources() {
        return customize(ClientResources.builder()).build();
    }

    /**
     * Gives the resources Ringwire's event loops, as many as Lettuce's default number of I/O threads; does nothing
     * where Ringwire is unavailable. Replaces the builder's event-loop-group provider and address resolver group.
     *
     * @param builder Lettuce's builder of client resources
     * @return {@code builder}
     */
    public static ClientResources.Builder customize(ClientResources.Builder builder) {
        return customize(builder, DefaultClientResources.DEFAULT_IO_THREADS);
    }

    /**
     * Gives the resources Ringwire's event loops, as {@link #customize(ClientResources.Builder)} does.
     *
     * @param builder Lettuce's builder of client resources
     * @param ioThreads the number of Ringwire event loops (what Lettuce calls {@code ioThreadPoolSize})
     * @return {@code builder}
     */
    public static ClientResources.Builder customize(ClientResources.Builder builder, int ioThreads) {
        if (!Ringwire.isAvailable()) {
            return builder;
        }
        RingwireEventLoopGroupProvider loops = new RingwireEventLoopGroupProvider(ioThreads);
        return builder.eventLoopGroupProvider(loops)
            // Lettuce's default DNS resolver opens NIO's (or epoll's) channels on the connection's own event loop,
            // which is Ringwire's for this class's clients: this one resolves through Ringwire's channels there
            .addressResolverGroup(new RingwireDnsResolverGroup(loops));
    }

    /**
     * @param resources client resources
     * @return whether the resources' event loops are Ringwire's (from {@link #clientResources()} or
     *     {@link #customize(ClientResources.Builder)} where Ringwire is available): a Lettuce client on them runs on
     *     Ringwire if it is one of this class's; Lettuce's own ({@code RedisClient.create(resources, uri)}) opens
     *     channels of its own transport, which Ringwire's loops refuse, and gets Lettuce's own loops from them instead
     */
    public static boolean isRingwire(ClientResources resources) {
        return RingwireBootstrap.onRingwire(resources);
    }

    /**
     * @param resources client resources; with Ringwire's loops (from {@link #clientResources()} or
     *     {@link #customize(ClientResources.Builder)}) the client's connections run on Ringwire, with any others on
     *     Lettuce's own transport
     * @param redisURI the Redis server
     * @return a Lettuce client, as {@link RedisClient#create(ClientResources, RedisURI)} makes
     */
    public static RedisClient redisClient(ClientResources resources, RedisURI redisURI) {
        return RingwireBootstrap.onRingwire(resources) ? new RingwireRedisClient(resources, redisURI)
            : RedisClient.create(resources, redisURI);
    }

    /**
     * @param resources client resources, as for {@link #redisClient(ClientResources, RedisURI)}
     * @param redisURIs the cluster's seed nodes
     * @return a Lettuce cluster client, as {@link RedisClusterClient#create(ClientResources, Iterable)} makes
     */
    public static RedisClusterClient redisClusterClient(ClientResources resources, Iterable<RedisURI> redisURIs) {
        return RingwireBootstrap.onRingwire(resources) ? new RingwireRedisClusterClient(resources, redisURIs)
            : RedisClusterClient.create(resources, redisURIs);
    }
}
