package io.ringwire.lettuce;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lettuce on Ringwire against a real redis-server on a loopback port. */
class RedisOnRingwireTest {
    /** Only a guard against hangs: every wait below ends far sooner on any machine. */
    private static final Duration GUARD = Duration.ofSeconds(30);

    @TempDir
    static Path dir;
    private static RedisServer server;

    private ChannelRecorder recorder;
    private ClientResources resources;
    private RedisClient client;

    @BeforeAll
    static void startServer() throws Exception {
        RedisServer.assumeInstalled();
        server = RedisServer.start(dir);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void createClient() {
        recorder = new ChannelRecorder();
        resources = recorder.resources();
        client = RingwireLettuce.redisClient(resources, RedisURI.builder().redis("127.0.0.1", server.port).withTimeout(GUARD).build());
    }

    @AfterEach
    void shutDown() {
        client.shutdown(Duration.ZERO, GUARD);
        resources.shutdown(0, GUARD.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
    }

    @Test
    void commandsRunOnRingwiresLoopsAndChannels() {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            assertEquals("OK", redis.set("greeting", "hello"));
            assertEquals("hello", redis.get("greeting"));
            assertEquals(3L, redis.rpush("list", "a", "b", "c"));
            assertEquals(List.of("a", "b", "c"), redis.lrange("list", 0, -1));
            assertEquals(1L, redis.del("list"));
            String large = "x".repeat(256 * 1024);
            redis.set("large", large);
            assertEquals(large, redis.get("large"));
        }
        long written = recorder.assertAllOnRingwire(RingwireSocketChannel.class);
        assertTrue(written > 256 * 1024, "Ringwire's loops wrote the commands: " + RingwireCounters.all());
    }

    /**
     * Why RingwireLettuce has clients of its own: Lettuce's own client sets its channel class from its static
     * Transports (NIO's or epoll's), which Ringwire's loops refuse to register, and Netty's bootstrap lets no
     * NettyCustomizer change it afterwards. On Ringwire's resources such a client gets Lettuce's own loops instead, and
     * works on its own transport, its host name resolved through that transport's channels, beside a client of
     * RingwireLettuce's, which stays on Ringwire.
     */
    @Test
    void lettucesOwnClientRunsOnLettucesOwnLoopsBesideRingwires() {
        RedisClient lettuces = RedisClient.create(resources,
            RedisURI.builder().redis("localhost", server.port).withTimeout(GUARD).build());
        try (StatefulRedisConnection<String, String> own = lettuces.connect();
             StatefulRedisConnection<String, String> ringwire = client.connect()) {
            own.sync().set("lettuces", "own");
            assertEquals("own", ringwire.sync().get("lettuces"));
            ringwire.sync().set("ringwire", "too");
            assertEquals("too", own.sync().get("ringwire"));
        } finally {
            lettuces.shutdown(Duration.ZERO, GUARD);
        }
        assertEquals(2, recorder.channels.size(), () -> "one channel each: " + recorder.channels);
        io.netty.channel.Channel own = recorder.channels.get(0);
        assertTrue(own.getClass().getName().startsWith("io.netty.channel."), () -> "Lettuce's own transport: " + own);
        assertNull(RingwireCounters.of(own.eventLoop()), () -> "the loop of " + own + " is Lettuce's own");
        assertTrue(RingwireLettuce.isRingwire(resources));
        recorder.channels.remove(own);
        recorder.assertAllOnRingwire(RingwireSocketChannel.class);
    }

    @Test
    void pipelinedCommandsAllComplete() throws Exception {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisAsyncCommands<String, String> redis = connection.async();
            connection.setAutoFlushCommands(false);
            List<RedisFuture<?>> sets = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                sets.add(redis.set("key:" + i, "value:" + i));
            }
            connection.flushCommands();
            assertTrue(LettuceFutures.awaitAll(GUARD, sets.toArray(new RedisFuture[0])), "the pipelined SETs completed");
            List<RedisFuture<String>> gets = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                gets.add(redis.get("key:" + i));
            }
            connection.flushCommands();
            for (int i = 0; i < 2000; i++) {
                assertEquals("value:" + i, gets.get(i).get(GUARD.toSeconds(), TimeUnit.SECONDS));
            }
        }
        recorder.assertAllOnRingwire(RingwireSocketChannel.class);
    }

    @Test
    void publishedMessagesReachTheSubscriber() throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub();
             StatefulRedisConnection<String, String> publisher = client.connect()) {
            subscriber.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    received.add(channel + ":" + message);
                }
            });
            subscriber.sync().subscribe("news");
            for (int i = 0; i < 10; i++) {
                assertEquals(1L, publisher.sync().publish("news", "item " + i));
            }
            for (int i = 0; i < 10; i++) {
                assertEquals("news:item " + i, received.poll(GUARD.toSeconds(), TimeUnit.SECONDS));
            }
        }
        assertEquals(2, recorder.channels.size(), "a subscriber's and a publisher's channel");
        recorder.assertAllOnRingwire(RingwireSocketChannel.class);
    }

    @Test
    void reconnectsOnRingwireAfterTheServerRestarts() throws Exception {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertEquals("OK", connection.sync().set("before", "restart"));
            server.close();
            server.start();
            // the command waits in Lettuce's buffer until its watchdog has reconnected, then runs
            assertEquals("PONG", connection.async().ping().get(GUARD.toSeconds(), TimeUnit.SECONDS));
            assertEquals("OK", connection.sync().set("after", "restart"));
        }
        assertTrue(recorder.channels.size() >= 2, "reconnected on a new channel: " + recorder.channels);
        recorder.assertAllOnRingwire(RingwireSocketChannel.class);
    }

    @Test
    void everyPipelinedCommandCompletesOrFailsWhenTheServerIsKilled() throws Exception {
        client.setOptions(ClientOptions.builder().autoReconnect(false).build());
        List<RedisFuture<String>> futures = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> redis = connection.async();
            String value = "v".repeat(1024);
            for (int i = 0; i < 20_000; i++) {
                futures.add(redis.set("doomed:" + i, value));
            }
            connection.flushCommands();
            server.kill();
            int completed = 0;
            int failed = 0;
            for (RedisFuture<String> future : futures) {
                try {
                    assertEquals("OK", future.get(GUARD.toSeconds(), TimeUnit.SECONDS));
                    completed++;
                } catch (ExecutionException e) {
                    failed++;
                }
            }
            assertEquals(futures.size(), completed + failed);
        } finally {
            server.start();
        }
        recorder.assertAllOnRingwire(RingwireSocketChannel.class);
    }
}
