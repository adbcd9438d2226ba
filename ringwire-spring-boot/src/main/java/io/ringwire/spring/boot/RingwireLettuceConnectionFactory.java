package io.ringwire.spring.boot;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.ringwire.lettuce.RingwireLettuce;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Field;
import java.time.Duration;

/**
 * A Spring Data Redis {@link LettuceConnectionFactory} whose Lettuce clients are {@link RingwireLettuce}'s: the
 * factory builds its client as Spring Data Redis does (the Redis URI or URIs, with the credentials, TLS, timeouts,
 * database and client name of its configuration; the client options), and this one hands the client's URI and options
 * to {@link RingwireLettuce#redisClient} or {@link RingwireLettuce#redisClusterClient}, whose connections open
 * Ringwire's channels. Standalone, Unix socket, Sentinel, static master/replica ({@code RedisClient}) and cluster
 * ({@code RedisClusterClient}) configurations all go through it.
 *
 * <p>Lettuce's clients have no getter for the URI they were made with: it is read from their private field
 * ({@code RedisClient.redisURI}, {@code RedisClusterClient.initialUris}), as Spring Data Redis's own connection
 * providers read {@code redisURI}; a Lettuce without them stops the application at start, naming the field.
 */
final class RingwireLettuceConnectionFactory extends LettuceConnectionFactory {
    /** A copy of {@code lettuces}, not yet started: the same configuration, client configuration and settings. */
    private RingwireLettuceConnectionFactory(LettuceConnectionFactory lettuces) {
        super(lettuces.getStandaloneConfiguration(), lettuces.getClientConfiguration());
        // every other setting as the original has it (the Redis configuration, the executor, the pipelining policy,
        // the sharing, validation and start-up flags...), whatever this Spring Data Redis version has: its non-final
        // fields; the final ones are the two above and the factory's own state (its lock and lifecycle state)
        ReflectionUtils.shallowCopyFieldState(lettuces, this);
    }

    /**
     * @param factory  a connection factory bean, not yet initialized
     * @param beanName its name
     * @return {@code factory} itself if its Lettuce clients need not be Ringwire's (its client resources are not
     *     Ringwire's) or already are; else a {@code RingwireLettuceConnectionFactory} in its place
     * @throws IllegalStateException for a subclass of {@code LettuceConnectionFactory} on Ringwire's client resources,
     *     whose clients cannot be made Ringwire's here
     */
    static LettuceConnectionFactory takeOver(LettuceConnectionFactory factory, String beanName) {
        ClientResources resources = factory.getClientConfiguration().getClientResources().orElse(null);
        if (resources == null || !RingwireLettuce.isRingwire(resources)
            || factory instanceof RingwireLettuceConnectionFactory) {
            return factory;
        }
        if (factory.getClass() != LettuceConnectionFactory.class) {
            throw new IllegalStateException("Bean '" + beanName + "' (" + factory.getClass().getName() + ", a subclass "
                + "of LettuceConnectionFactory) has the ClientResources on Ringwire's event loops, but its Lettuce "
                + "clients would run on Lettuce's own transport, not on those loops: give it client "
                + "resources of its own, or make it a LettuceConnectionFactory (Ringwire then makes its clients), or set "
                + "ringwire.enabled=false");
        }
        return new RingwireLettuceConnectionFactory(factory);
    }

    @Override
    protected AbstractRedisClient createClient() {
        AbstractRedisClient lettuces = super.createClient();
        try {
            return onRingwire(lettuces);
        } finally {
            // made on the shared resources and never connected: shutting it down releases nothing but itself; also
            // when Ringwire's client cannot be made
            lettuces.shutdown(Duration.ZERO, Duration.ZERO);
        }
    }

    /** @return a client of {@link RingwireLettuce}'s with the resources, URI(s) and options of {@code client} */
    static AbstractRedisClient onRingwire(AbstractRedisClient client) {
        if (client instanceof RedisClusterClient cluster) {
            @SuppressWarnings("unchecked")
            Iterable<RedisURI> seeds = (Iterable<RedisURI>) read(RedisClusterClient.class, "initialUris", cluster);
            RedisClusterClient ringwire = RingwireLettuce.redisClusterClient(cluster.getResources(), seeds);
            ringwire.setOptions((ClusterClientOptions) cluster.getOptions());
            return ringwire;
        }
        if (client instanceof RedisClient redis) {
            // a static master/replica client has Lettuce's empty URI, which it checks by identity: passed on as it is
            RedisURI uri = (RedisURI) read(RedisClient.class, "redisURI", redis);
            RedisClient ringwire = RingwireLettuce.redisClient(redis.getResources(), uri);
            ringwire.setOptions(redis.getOptions());
            return ringwire;
        }
        throw new IllegalStateException("Ringwire cannot make a " + client.getClass().getName()
            + " its own (Lettuce's RedisClient and RedisClusterClient only)");
    }

    private static Object read(Class<?> type, String name, Object target) {
        Field field = ReflectionUtils.findField(type, name);
        if (field == null) {
            throw new IllegalStateException("Lettuce " + RedisClient.class.getPackage().getImplementationVersion()
                + " has no field " + type.getSimpleName() + "." + name + ", where Ringwire reads the address of the "
                + "client Spring Data Redis made; set ringwire.enabled=false to run this Lettuce on its own transport");
        }
        ReflectionUtils.makeAccessible(field);
        return ReflectionUtils.getField(field, target);
    }
}
