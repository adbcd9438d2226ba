package io.ringwire.transport.fallback;

import io.ringwire.transport.BestTransport;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application on {@code Ringwire.bestTransport()} in a JVM whose io_uring system calls are filtered as a Docker
 * seccomp profile filters them, from before the JVM starts ({@link SeccompChild}): under Docker's default profile
 * Ringwire names EPERM as its cause and the echo server answers on Netty's epoll transport, or on NIO when epoll is
 * not on the class path; under the profile Ringwire ships, Ringwire is available and the echo server runs on it.
 */
class FallbackUnderSeccompTest {
    @Test
    void dockersDefaultProfileFallsBackToEpoll() throws IOException, InterruptedException {
        SeccompChild.Result r = SeccompChild.run(SeccompChild.MOBY_DEFAULT, entry -> true, FallbackEchoApp.class);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=EPERM"), r.out());
        assertTrue(r.get("cause").contains("EPERM") && r.get("cause").contains("seccomp"), r.out());
        assertEquals(BestTransport.Kind.EPOLL.name(), r.get("kind"), r.out());
        assertTrue(r.get("reason").contains("EPERM"), r.out());
        assertEquals("EpollServerSocketChannel", r.get("server"), r.out());
        assertEquals("hello", r.get("echo"), r.out());
    }

    @Test
    void dockersDefaultProfileWithoutEpollFallsBackToNio() throws IOException, InterruptedException {
        // the class path without Netty's epoll jars: Ringwire must not need them (an optional dependency)
        SeccompChild.Result r = SeccompChild.run(SeccompChild.MOBY_DEFAULT,
            entry -> !entry.contains("netty-transport-native-epoll") && !entry.contains("netty-transport-classes-epoll"),
            FallbackEchoApp.class);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.get("cause").contains("EPERM"), r.out());
        assertEquals(BestTransport.Kind.NIO.name(), r.get("kind"), r.out());
        assertTrue(r.get("reason").contains("netty-transport-native-epoll is not on the class path"), r.out());
        assertEquals("null", r.get("domain"), r.out());
        assertEquals("NioServerSocketChannel", r.get("server"), r.out());
        assertEquals("hello", r.get("echo"), r.out());
    }

    @Test
    void shippedProfileAllowsRingwire() throws IOException, InterruptedException {
        SeccompChild.Result r = SeccompChild.run(SeccompChild.SHIPPED, entry -> true, FallbackEchoApp.class);
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("seccomp: io_uring_setup=allowed io_uring_enter=allowed "
            + "io_uring_register=allowed"), r.out());
        assertEquals("none", r.get("cause"), r.out());
        assertEquals(BestTransport.Kind.RINGWIRE.name(), r.get("kind"), r.out());
        assertEquals("RingwireServerSocketChannel", r.get("server"), r.out());
        assertEquals("hello", r.get("echo"), r.out());
    }
}
