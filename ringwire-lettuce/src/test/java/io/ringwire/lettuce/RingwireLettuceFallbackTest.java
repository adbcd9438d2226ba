package io.ringwire.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertSame;

/** Resources that are not Ringwire's get Lettuce's own clients, which run on Lettuce's own transport. */
class RingwireLettuceFallbackTest {
    @Test
    void resourcesOfLettucesOwnGetLettucesOwnClients() {
        ClientResources lettuces = ClientResources.create();
        try {
            RedisURI uri = RedisURI.create("redis://127.0.0.1:6379");
            RedisClient client = RingwireLettuce.redisClient(lettuces, uri);
            RedisClusterClient cluster = RingwireLettuce.redisClusterClient(lettuces, List.of(uri));
            assertSame(RedisClient.class, client.getClass());
            assertSame(RedisClusterClient.class, cluster.getClass());
            client.shutdown(Duration.ZERO, Duration.ofSeconds(30));
            cluster.shutdown(Duration.ZERO, Duration.ofSeconds(30));
        } finally {
            lettuces.shutdown(0, 30, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    @Test
    void ringwiresResourcesGetClientsOnRingwiresChannels() {
        ClientResources resources = RingwireLettuce.clientResources();
        try {
            RedisURI uri = RedisURI.create("redis://127.0.0.1:6379");
            RedisClient client = RingwireLettuce.redisClient(resources, uri);
            assertSame(RingwireRedisClient.class, client.getClass());
            client.shutdown(Duration.ZERO, Duration.ofSeconds(30));
        } finally {
            resources.shutdown(0, 30, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
