package io.ringwire.spring.boot;

import io.ringwire.transport.fallback.SeccompChild;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Spring Boot WebFlux application with Ringwire's auto-configuration in a JVM whose io_uring system calls are filtered as a Docker seccomp profile filters them, from before the
 * JVM starts ({@link SeccompChild}): under Docker's default profile (EPERM) it starts on the transport
 * {@code Ringwire.bestTransport()} falls back to and answers; under the profile Ringwire ships, it runs on Ringwire.
 */
class FallbackUnderSeccompTest {
    @Test
    void dockersDefaultProfileStartsOnTheFallback() throws IOException, InterruptedException {
        SeccompChild.Result r = SeccompChild.run(SeccompChild.MOBY_DEFAULT, entry -> true, FallbackBootApp.class);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=EPERM"), r.out());
        // the choice, logged once by Ringwire.bestTransport(), names the kernel's answer
        assertTrue(r.out().contains("Ringwire cannot run: ") && r.out().contains("EPERM"), r.out());
        assertNotEquals("RINGWIRE", r.get("kind"), r.out());
        assertEquals("Hello, World!", r.get("echo"), r.out());
    }

    @Test
    void shippedProfileRunsOnRingwire() throws IOException, InterruptedException {
        SeccompChild.Result r = SeccompChild.run(SeccompChild.SHIPPED, entry -> true, FallbackBootApp.class);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=allowed"), r.out());
        assertEquals("RINGWIRE", r.get("kind"), r.out());
        assertEquals("Hello, World!", r.get("echo"), r.out());
    }
}
