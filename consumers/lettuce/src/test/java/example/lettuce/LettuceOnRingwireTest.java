package example.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringwire.lettuce.RingwireLettuce;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Lettuce with RingwireLettuce's resources and client, as the guide shows, against a redis-server it starts. */
class LettuceOnRingwireTest {
    @TempDir
    Path dir;

    @Test
    void setAndGetGoThroughRingwire() throws Exception {
        assumeTrue(onPath("redis-server"), "redis-server is not installed: skipped");
        assertTrue(Ringwire.isAvailable(), "Ringwire is available here");
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder("redis-server", "--bind", "127.0.0.1", "--port", Integer.toString(port),
            "--dir", dir.toString(), "--save", "", "--appendonly", "no")
            .redirectErrorStream(true).redirectOutput(dir.resolve("redis.out").toFile()).start();
        try {
            awaitListening(port);
            ClientResources resources = RingwireLettuce.clientResources();
            RedisClient client = RingwireLettuce.redisClient(resources, RedisURI.create("redis://127.0.0.1:" + port));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertEquals("OK", connection.sync().set("greeting", "Hello"));
                assertEquals("Hello", connection.sync().get("greeting"));
                long received = 0;
                for (RingwireCounters c : RingwireCounters.all()) {
                    received += c.recvBytes();
                }
                assertTrue(received > 0, "Ringwire's loops carried the commands: " + RingwireCounters.all());
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(30));
                resources.shutdown(0, 30, TimeUnit.SECONDS).awaitUninterruptibly();
            }
        } finally {
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (java.io.IOException e) {
                assertTrue(System.nanoTime() < deadline, "redis-server listened within 30 s");
                Thread.sleep(20);
            }
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
