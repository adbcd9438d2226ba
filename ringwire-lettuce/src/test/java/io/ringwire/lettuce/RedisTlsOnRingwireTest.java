package io.ringwire.lettuce;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.handler.ssl.SslHandler;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Lettuce over TLS on Ringwire against redis-server's TLS port, with a certificate made for the test. */
class RedisTlsOnRingwireTest {
    private static final Duration GUARD = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void commandsRunOverTlsOnRingwire() throws Exception {
        RedisServer.assumeInstalled();
        Assumptions.assumeTrue(RedisServer.onPath("openssl"),
            "openssl is not installed (it makes the test's certificate; .ci/run installs it): skipped");
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
            "-keyout", key.toString(), "-out", cert.toString(), "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost").redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.out").toFile()).start();
        assertEquals(true, openssl.waitFor(60, TimeUnit.SECONDS), "openssl ended");
        assertEquals(0, openssl.exitValue(), "openssl made the certificate");

        int tlsPort = RedisServer.freePort();
        ChannelRecorder recorder = new ChannelRecorder();
        ClientResources resources = recorder.resources();
        try (RedisServer server = RedisServer.start(dir, "--tls-port", Integer.toString(tlsPort),
            "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(),
            "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no")) {
            RedisClient client = RingwireLettuce.redisClient(resources,
                RedisURI.builder().redis("127.0.0.1", tlsPort).withSsl(true).withTimeout(GUARD).build());
            client.setOptions(ClientOptions.builder()
                .sslOptions(SslOptions.builder().jdkSslProvider().trustManager(cert.toFile()).build()).build());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertEquals("OK", connection.sync().set("secret", "kept"));
                assertEquals("kept", connection.sync().get("secret"));
                assertEquals(List.of("kept"), connection.sync().mget("secret").stream().map(kv -> kv.getValue()).toList());
                assertNotNull(recorder.channels.getFirst().pipeline().get(SslHandler.class), "the connection runs TLS");
                recorder.assertAllOnRingwire(RingwireSocketChannel.class);
            } finally {
                client.shutdown(Duration.ZERO, GUARD);
            }
        } finally {
            resources.shutdown(0, GUARD.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
