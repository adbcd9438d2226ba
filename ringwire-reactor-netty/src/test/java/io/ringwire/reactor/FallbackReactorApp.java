package io.ringwire.reactor;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

import java.time.Duration;

/**
 * A Reactor Netty HTTP server and client on {@link RingwireLoopResources}, run in {@link SeccompChild}'s child JVM:
 * one request on loopback. Prints the transport chosen, the server channel's class and the answer as
 * {@code key=value} lines.
 */
public final class FallbackReactorApp {
    private FallbackReactorApp() { }

    public static void main(String[] args) {
        RingwireLoopResources loops = RingwireLoopResources.create("fallback", 1);
        System.out.println("kind=" + loops.transport().kind());
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).runOn(loops)
            .handle((request, response) -> response.sendString(Mono.just("hello"))).bindNow();
        System.out.println("server=" + server.channel().getClass().getSimpleName());
        try {
            String answer = HttpClient.create().runOn(loops).get()
                .uri("http://127.0.0.1:" + server.port() + "/").responseContent().aggregate().asString()
                .block(Duration.ofSeconds(60));
            System.out.println("echo=" + answer);
        } finally {
            server.disposeNow();
            loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block();
        }
        System.out.flush();
        System.exit(0);
    }
}
