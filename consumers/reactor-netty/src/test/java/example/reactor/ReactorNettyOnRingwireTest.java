package example.reactor;

import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reactor Netty's HTTP server and client on RingwireLoopResources, as the guide shows, counted by Ringwire's loops. */
class ReactorNettyOnRingwireTest {
    @Test
    void anHttpExchangeGoesThroughRingwire() {
        RingwireLoopResources loops = RingwireLoopResources.create("http", 2);
        DisposableServer server = HttpServer.create()
            .host("127.0.0.1").port(0)
            .runOn(loops)
            .route(routes -> routes.get("/hello", (request, response) -> response.sendString(Mono.just("Hello"))))
            .bindNow();
        try {
            String body = HttpClient.create()
                .runOn(loops)
                .get().uri("http://127.0.0.1:" + server.port() + "/hello")
                .responseContent().aggregate().asString()
                .block(Duration.ofSeconds(30));
            assertEquals("Hello", body);
            long received = 0;
            for (RingwireCounters c : RingwireCounters.all()) {
                received += c.recvBytes();
            }
            assertTrue(received > 0, "Ringwire's loops carried the exchange: " + RingwireCounters.all());
        } finally {
            server.disposeNow();
            loops.dispose();
        }
    }
}
