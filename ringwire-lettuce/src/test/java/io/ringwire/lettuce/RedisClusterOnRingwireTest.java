package io.ringwire.lettuce;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lettuce's cluster client on Ringwire against a real Redis cluster of three local masters. */
class RedisClusterOnRingwireTest {
    private static final Duration GUARD = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void keysSpreadOverThreeMastersRunOnRingwire() throws Exception {
        RedisServer.assumeInstalled();
        List<RedisServer> masters = new ArrayList<>();
        ChannelRecorder recorder = new ChannelRecorder();
        ClientResources resources = recorder.resources();
        try {
            for (int i = 0; i < 3; i++) {
                int port = RedisServer.freePort();
                masters.add(RedisServer.start(dir, "--cluster-enabled", "yes",
                    "--cluster-config-file", dir.resolve("nodes-" + port + ".conf").toString(),
                    "--cluster-node-timeout", "5000"));
            }
            createCluster(masters);
            List<RedisURI> seeds = masters.stream()
                .map(m -> RedisURI.builder().redis("127.0.0.1", m.port).withTimeout(GUARD).build()).toList();
            RedisClusterClient client = RingwireLettuce.redisClusterClient(resources, seeds);
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                List<RedisClusterNode> nodes = connection.getPartitions().getPartitions();
                assertEquals(3, nodes.size(), "three masters: " + nodes);
                for (int i = 0; i < 300; i++) {
                    assertEquals("OK", redis.set("key:" + i, "value:" + i));
                }
                for (int i = 0; i < 300; i++) {
                    assertEquals("value:" + i, redis.get("key:" + i));
                }
                long keys = 0;
                for (RedisClusterNode node : nodes) {
                    long onNode = connection.getConnection(node.getNodeId()).sync().dbsize();
                    assertTrue(onNode > 0, "node " + node.getUri() + " holds keys");
                    keys += onNode;
                }
                assertEquals(300, keys);
                // the client's connections: the seeds' for the topology, and each node's
                assertTrue(recorder.channels.size() >= 3, "connections to each master: " + recorder.channels);
                recorder.assertAllOnRingwire(RingwireSocketChannel.class);
            } finally {
                client.shutdown(Duration.ZERO, GUARD);
            }
        } finally {
            resources.shutdown(0, GUARD.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
            for (RedisServer master : masters) {
                master.close();
            }
        }
    }

    /** {@code redis-cli --cluster create}, then waits until every node reports the cluster's state ok. */
    private static void createCluster(List<RedisServer> masters) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (RedisServer master : masters) {
            command.add("127.0.0.1:" + master.port);
        }
        command.add("--cluster-yes");
        Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(create.waitFor(60, TimeUnit.SECONDS), "redis-cli --cluster create ended");
        assertEquals(0, create.exitValue(), output);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (RedisServer master : masters) {
            while (!cli(master.port, "cluster", "info").contains("cluster_state:ok")) {
                assertTrue(System.nanoTime() < deadline, "the cluster became ok within 30 s");
                Thread.sleep(50);
            }
        }
    }

    private static String cli(int port, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        cli.waitFor(30, TimeUnit.SECONDS);
        return output;
    }
}
