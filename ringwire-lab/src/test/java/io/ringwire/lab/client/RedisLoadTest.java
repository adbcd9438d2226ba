package io.ringwire.lab.client;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.ringwire.lab.server.RedisServerProcess;
import io.ringwire.lab.server.ServerStats;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The redis-client workload's load, in this JVM on Lettuce's own transport against a real redis-server: a wrong reply
 * is counted as a mismatch (which makes the lab's exit code 1), and a run that saw none reads every key back clean.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisLoadTest {
    private static String program;

    @BeforeAll
    static void redisServerInstalled() {
        List<String> notes = new ArrayList<>();
        program = RedisServerProcess.locate(notes::add);
        assumeTrue(program != null, () -> "redis-server is not installed (Debian's package redis-server; .ci/run "
            + "installs it): " + notes);
    }

    /** Runs {@code test} with a load of {@code shape} on a connection to a fresh redis-server, and another one. */
    private static void withLoad(RedisLoad.Shape shape, LoadTest test) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start(program)) {
            ClientResources resources = ClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .build();
            RedisClient client = RedisClient.create(resources,
                RedisURI.create("redis://127.0.0.1:" + redis.address().getPort()));
            try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
                 StatefulRedisConnection<byte[], byte[]> other = client.connect(ByteArrayCodec.INSTANCE)) {
                RedisLoad load = new RedisLoad(connection, shape);
                load.start();
                test.run(load, other);
            } finally {
                client.shutdown();
                resources.shutdown().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private interface LoadTest {
        void run(RedisLoad load, StatefulRedisConnection<byte[], byte[]> other) throws Exception;
    }

    @Test
    void aGetAnsweringAnotherValueThanTheKeysIsAMismatch() throws Exception {
        withLoad(new RedisLoad.Shape("get", 16, 1, 0), (load, other) -> {
            assertEquals(0.0, ServerStats.parse(load.answer("LOAD")).get("mismatches"));
            // behind the load's back: the load reads its keys in turn, and will read this one again
            other.sync().set("ringwire-lab:7".getBytes(StandardCharsets.US_ASCII),
                "not the value set".getBytes(StandardCharsets.US_ASCII));
            Map<String, Double> window = ServerStats.parse(load.answer("LOAD"));
            while (window.get("mismatches") == 0) {
                Thread.sleep(10);
                window = ServerStats.parse(load.answer("LOAD"));
            }
            Map<String, Double> finished = ServerStats.parse(load.answer("FINISH"));
            // the load's own GETs of it, and the read-back of every key after it stopped
            assertTrue(finished.get("mismatches") >= 2, finished::toString);
            assertEquals(0.0, finished.get("errors"), finished::toString);
        });
    }

    @Test
    void setsAndPipelinedBatchesReadEveryKeyBackClean() throws Exception {
        for (RedisLoad.Shape shape : List.of(new RedisLoad.Shape("set", 64, 8, 0),
            new RedisLoad.Shape("pipeline", 64, 20, 0))) {
            withLoad(shape, (load, other) -> {
                Map<String, Double> window = ServerStats.parse(load.answer("LOAD"));
                while (window.get("commands") < 2 * RedisLoad.KEYS) { // every key SET at least once more
                    Thread.sleep(10);
                    window = ServerStats.parse(load.answer("LOAD"));
                }
                Map<String, Double> finished = ServerStats.parse(load.answer("FINISH"));
                assertEquals(Map.of("mismatches", 0.0, "errors", 0.0, "unanswered", 0.0), finished,
                    shape::toString);
            });
        }
    }
}
