package io.ringwire.lab.server;

import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.experiment.Experiment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The http workload's Spring Boot WebFlux servers: each starts in its own JVM, answers "Hello, World!" as the other
 * http servers do, and runs on the transport its name says (webflux-ringwire's answers move Ringwire's counters,
 * webflux-epoll's run no Ringwire loop); they serve the http workload only.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WebFluxServersTest {
    @Test
    void eachAnswersHelloWorldOnItsTransport() throws Exception {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30)).build()) {
            for (Competitor c : new Competitor[] {Competitor.WEBFLUX_RINGWIRE, Competitor.WEBFLUX_EPOLL}) {
                try (ServerProcess server = ServerProcess.start(c, Protocol.HTTP, 1)) {
                    server.resetStats();
                    URI uri = URI.create("http://127.0.0.1:" + server.address().getPort() + "/");
                    for (int i = 0; i < 10; i++) {
                        HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                        assertEquals(200, r.statusCode(), c.label());
                        assertEquals("Hello, World!", r.body(), c.label());
                        assertEquals("text/plain", r.headers().firstValue("content-type").orElse(""), c.label());
                    }
                    Map<String, Double> stats = server.stats();
                    assertFalse(stats.isEmpty(), c + " answered STATS");
                    if (c == Competitor.WEBFLUX_RINGWIRE) {
                        assertTrue(stats.getOrDefault("recvs", 0.0) >= 10, () -> c + " on Ringwire: " + stats);
                    } else {
                        assertFalse(stats.containsKey("enters"), () -> c + " runs no Ringwire loop: " + stats);
                    }
                }
            }
        }
    }

    @Test
    void theyServeTheHttpWorkloadOnly() {
        assertTrue(Competitor.WEBFLUX_EPOLL.httpOnly());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Workloads.echo(
            new Experiment.Settings(List.of(Competitor.WEBFLUX_RINGWIRE), 1, 0.3, 1.0, 0.7, 1), 1, 128, 1, 0));
        assertTrue(e.getMessage().contains("http workload only"), e.getMessage());
    }
}
