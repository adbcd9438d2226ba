package io.ringwire.spring.boot;

import io.ringwire.lettuce.RedisServer;
import io.ringwire.transport.fallback.SeccompChild;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Spring Boot WebFlux application with Ringwire's auto-configuration in a JVM whose io_uring system calls are filtered as a Docker seccomp profile filters them, from before the
 * JVM starts ({@link SeccompChild}): under Docker's default profile (EPERM) it starts on the transport
 * {@code Ringwire.bestTransport()} falls back to and answers; under the profile Ringwire ships, it runs on Ringwire.
 * Where redis-server is installed, the application also makes a Spring Data Redis round trip, on Lettuce's own client
 * and transport in the first case and on Ringwire's in the second.
 */
class FallbackUnderSeccompTest {
    @TempDir
    static Path dir;
    /** The redis-server the child's Spring Data Redis round trip goes to, where one is installed (else none). */
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() throws IOException, InterruptedException {
        if (RedisServer.onPath("redis-server")) {
            redis = RedisServer.start(dir);
        }
    }

    @AfterAll
    static void stopRedis() throws InterruptedException {
        if (redis != null) {
            redis.close();
        }
    }

    private static SeccompChild.Result run(String profile) throws IOException, InterruptedException {
        return redis == null ? SeccompChild.run(profile, entry -> true, FallbackBootApp.class)
            : SeccompChild.run(profile, entry -> true, FallbackBootApp.class, Integer.toString(redis.port));
    }

    @Test
    void dockersDefaultProfileStartsOnTheFallback() throws IOException, InterruptedException {
        SeccompChild.Result r = run(SeccompChild.MOBY_DEFAULT);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=EPERM"), r.out());
        // the choice, logged once by Ringwire.bestTransport(), names the kernel's answer
        assertTrue(r.out().contains("Ringwire cannot run: ") && r.out().contains("EPERM"), r.out());
        assertNotEquals("RINGWIRE", r.get("kind"), r.out());
        assertEquals("Hello, World!", r.get("echo"), r.out());
        // Lettuce: Boot's resources and client as they were, and one line that says why
        List<String> why = r.out().lines()
            .filter(l -> l.contains("Lettuce runs on its default transport, Ringwire being unavailable: ")).toList();
        assertEquals(1, why.size(), r.out());
        assertTrue(why.get(0).contains("EPERM"), why.get(0));
        if (redis != null) {
            assertEquals("Hello, Redis!", r.get("redis"), r.out());
            assertEquals("RedisClient", r.get("lettuce"), r.out());
        }
    }

    @Test
    void shippedProfileRunsOnRingwire() throws IOException, InterruptedException {
        SeccompChild.Result r = run(SeccompChild.SHIPPED);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=allowed"), r.out());
        assertEquals("RINGWIRE", r.get("kind"), r.out());
        assertEquals("Hello, World!", r.get("echo"), r.out());
        if (redis != null) {
            assertEquals("Hello, Redis!", r.get("redis"), r.out());
            assertEquals("RingwireRedisClient", r.get("lettuce"), r.out());
        }
    }
}
