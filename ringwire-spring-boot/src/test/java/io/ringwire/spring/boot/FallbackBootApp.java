package io.ringwire.spring.boot;

import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.transport.Ringwire;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The tests' WebFlux application, run in {@link SeccompChild}'s child JVM: one request on loopback. Prints the
 * transport {@code Ringwire.bestTransport()} chose, the server channel's class and the answer as {@code key=value}
 * lines.
 */
public final class FallbackBootApp {
    private FallbackBootApp() { }

    public static void main(String[] args) throws Exception {
        System.out.println("kind=" + Ringwire.bestTransport().kind());
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(EchoApplication.class)
                .properties("server.address=127.0.0.1", "server.port=0",
                    "spring.reactor.netty.shutdown-quiet-period=0s")
                .run()) {
            String port = context.getEnvironment().getProperty("local.server.port");
            System.out.println("echo=" + get("http://127.0.0.1:" + port + "/hello"));
            System.out.println("server=" + context.getBean(EchoApplication.Channels.class).bound.stream()
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
