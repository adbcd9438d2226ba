package io.ringwire.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EpollProvider;
import io.ringwire.transport.RingwireDomainSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Lettuce over redis-server's Unix domain socket on Ringwire. Lettuce lets a {@code redis-socket:} URI through only
 * where Netty's native epoll is loadable (this test's JVM has it on its class path, see the module's pom); the
 * connection then runs on Ringwire's domain socket channel, not epoll's.
 */
class RedisDomainSocketOnRingwireTest {
    private static final Duration GUARD = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void commandsRunOverAUnixSocketOnRingwire() throws Exception {
        RedisServer.assumeInstalled();
        // the module's surefire execution domain-sockets runs this test with epoll; elsewhere (-Dtest=...) it skips
        assumeTrue(Boolean.getBoolean("ringwire.test.epollOnClassPath"),
            "runs in the surefire execution domain-sockets, which puts Netty's native epoll on the class path");
        assertTrue(EpollProvider.isAvailable(), "Netty's native epoll is on this test's class path");
        ChannelRecorder recorder = new ChannelRecorder();
        ClientResources resources = recorder.resources();
        try (RedisServer server = RedisServer.start(dir)) {
            RedisClient client = RingwireLettuce.redisClient(resources,
                RedisURI.builder().socket(server.socket.toString()).withTimeout(GUARD).build());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertEquals("OK", connection.sync().set("local", "only"));
                assertEquals("only", connection.sync().get("local"));
                assertTrue(connection.sync().clientList().contains("addr=" + server.socket),
                    "the server sees a Unix socket client: " + connection.sync().clientList());
                recorder.assertAllOnRingwire(RingwireDomainSocketChannel.class);
            } finally {
                client.shutdown(Duration.ZERO, GUARD);
            }
        } finally {
            resources.shutdown(0, GUARD.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
