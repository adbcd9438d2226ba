package example.redis;

import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The application against a redis-server the test starts, found on PATH (skipped without one, as the Lettuce consumer
 * is): its StringRedisTemplate's commands go through Ringwire's client and loops, the dependencies alone did it.
 */
@SpringBootTest
class GreetingApplicationTest {
    private static Process server;

    @BeforeAll
    static void redisServerIsInstalled() {
        assumeTrue(onPath("redis-server"), "redis-server is not installed: skipped");
        assertTrue(Ringwire.isAvailable(), () -> "Ringwire is available here: " + Ringwire.unavailabilityCause());
    }

    /** Runs after {@link #redisServerIsInstalled()}, when the test's application context is made. */
    @DynamicPropertySource
    static void redisServer(DynamicPropertyRegistry registry) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            port = probe.getLocalPort();
        }
        Path dir = Files.createTempDirectory("redis");
        server = new ProcessBuilder("redis-server", "--bind", "127.0.0.1", "--port", Integer.toString(port),
            "--dir", dir.toString(), "--save", "", "--appendonly", "no")
            .redirectErrorStream(true).redirectOutput(dir.resolve("redis.out").toFile()).start();
        awaitListening(port);
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> port);
    }

    @AfterAll
    static void stopServer() throws InterruptedException {
        if (server != null) {
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Autowired
    GreetingApplication.Greetings greetings;
    @Autowired
    LettuceConnectionFactory connectionFactory;

    @Test
    void greetingsGoThroughRingwire() {
        greetings.set("world", "Hello, World!");
        assertEquals("Hello, World!", greetings.get("world"));
        assertEquals("RingwireRedisClient", connectionFactory.getRequiredNativeClient().getClass().getSimpleName());
        long received = 0;
        for (RingwireCounters c : RingwireCounters.all()) {
            received += c.recvBytes();
        }
        assertTrue(received > 0, "Ringwire's loops carried the commands: " + RingwireCounters.all());
    }

    private static void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException e) {
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
