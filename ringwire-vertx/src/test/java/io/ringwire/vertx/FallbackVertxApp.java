package io.ringwire.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.transport.Transport;

import java.util.concurrent.TimeUnit;

/**
 * A Vert.x HTTP server and client on {@link RingwireTransport#best()}, run in {@link SeccompChild}'s child JVM: one
 * request on loopback. Prints the transport chosen and the answer as {@code key=value} lines.
 */
public final class FallbackVertxApp {
    private FallbackVertxApp() { }

    public static void main(String[] args) throws Exception {
        Transport transport = RingwireTransport.best();
        System.out.println("transport=" + transport.name());
        Vertx vertx = Vertx.builder().withTransport(transport).build();
        try {
            System.out.println("native=" + vertx.isNativeTransportEnabled());
            HttpServer server = vertx.createHttpServer().requestHandler(r -> r.response().end("hello"))
                .listen(0, "127.0.0.1").await(60, TimeUnit.SECONDS);
            // held until closed: Vert.x 5 shuts down a client that becomes unreachable, even mid-request
            // (VertxException "Pool closed", eclipse-vertx/vert.x#5577)
            HttpClient client = vertx.createHttpClient();
            String answer = client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
                .compose(request -> request.send().compose(response -> response.body()))
                .await(60, TimeUnit.SECONDS).toString();
            client.close().await(30, TimeUnit.SECONDS);
            System.out.println("echo=" + answer);
        } finally {
            vertx.close().await(30, TimeUnit.SECONDS);
        }
        System.out.flush();
        System.exit(0);
    }
}
