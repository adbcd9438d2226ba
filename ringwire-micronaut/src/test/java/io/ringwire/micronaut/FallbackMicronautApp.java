package io.ringwire.micronaut;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.ringwire.micronaut.app.Channels;
import io.ringwire.transport.Ringwire;

import java.util.Map;

/**
 * The tests' Micronaut application with {@code transport=ringwire,epoll,nio}, run in {@link SeccompChild}'s child
 * JVM: one request on loopback. Prints the transport {@code Ringwire.bestTransport()} chose, the server channel's
 * class and the answer as {@code key=value} lines.
 */
public final class FallbackMicronautApp {
    private FallbackMicronautApp() { }

    public static void main(String[] args) throws Exception {
        System.out.println("kind=" + Ringwire.bestTransport().kind());
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, Map.of(
                "micronaut.server.host", "127.0.0.1",
                "micronaut.server.port", "-1",
                "micronaut.netty.event-loops.default.transport", "ringwire,epoll,nio",
                "micronaut.server.netty.parent.event-loop-group", "default"))) {
            System.out.println("echo=" + get(server.getURL() + "/hello"));
            System.out.println("server=" + server.getApplicationContext().getBean(Channels.class).bound.stream()
                .map(Class::getSimpleName).findFirst().orElse("none"));
        }
        System.out.flush();
        System.exit(0);
    }

    /** GET over the JDK's HTTP client, which seccomp's io_uring filter does not touch. */
    static String get(String url) throws Exception {
        try (java.net.http.HttpClient c = java.net.http.HttpClient.newHttpClient()) {
            return c.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                    .timeout(java.time.Duration.ofSeconds(60)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        }
    }
}
