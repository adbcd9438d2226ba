package example.vertx;

import io.ringwire.transport.RingwireCounters;
import io.ringwire.vertx.RingwireTransport;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.transport.Transport;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Vert.x with RingwireTransport.RINGWIRE, as the guide shows: an HTTP exchange, counted by Ringwire's loops. */
class VertxOnRingwireTest {
    @Test
    void anHttpExchangeGoesThroughRingwire() throws Exception {
        Transport transport = RingwireTransport.RINGWIRE.available() ? RingwireTransport.RINGWIRE : Transport.NIO;
        assertSame(RingwireTransport.RINGWIRE, transport, "Ringwire is available here");
        Vertx vertx = Vertx.builder().withTransport(transport).build();
        try {
            HttpServer server = vertx.createHttpServer()
                .requestHandler(request -> request.response().end("Hello"))
                .listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
            // held until closed: Vert.x 5 shuts down a client that becomes unreachable, even mid-request
            // (VertxException "Pool closed", eclipse-vertx/vert.x#5577)
            HttpClient client = vertx.createHttpClient();
            String body = client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
                .compose(request -> request.send().compose(response -> response.body()))
                .await(30, TimeUnit.SECONDS).toString();
            client.close().await(30, TimeUnit.SECONDS);
            assertEquals("Hello", body);
            long received = 0;
            for (RingwireCounters c : RingwireCounters.all()) {
                received += c.recvBytes();
            }
            assertTrue(received > 0, "Ringwire's loops carried the exchange: " + RingwireCounters.all());
        } finally {
            vertx.close().await(30, TimeUnit.SECONDS);
        }
    }
}
