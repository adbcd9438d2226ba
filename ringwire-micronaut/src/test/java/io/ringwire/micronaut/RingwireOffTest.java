package io.ringwire.micronaut;

import io.micronaut.context.ApplicationContext;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.StreamingHttpClient;
import io.micronaut.http.client.sse.SseClient;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.websocket.WebSocketClient;
import io.ringwire.micronaut.app.Channels;
import io.ringwire.micronaut.app.EchoController;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application of {@link RingwireMicronautTest} without {@code ringwire} in its transport list: with
 * ringwire-micronaut on its class path it still serves on Micronaut's default transport, and no Ringwire loop ever
 * runs in its JVM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireOffTest {
    @Test
    void servesOnMicronautsDefaultTransport() throws InterruptedException {
        assertServesOnNettysDefault(Map.of("micronaut.server.host", "127.0.0.1"));
    }

    /**
     * Starts the application with {@code properties} on a random port, exchanges a little of everything, and checks
     * that no Ringwire channel or loop took part.
     *
     * @param properties the application's configuration
     */
    static void assertServesOnNettysDefault(Map<String, Object> properties)
            throws InterruptedException {
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, properties)) {
            ApplicationContext context = server.getApplicationContext();
            URL url = server.getURL();
            try (Exchanges exchanges = new Exchanges(url, context.createBean(HttpClient.class, url),
                    context.createBean(StreamingHttpClient.class, url), context.createBean(SseClient.class, url),
                    context.createBean(WebSocketClient.class, url))) {
                assertEquals(EchoController.HELLO, exchanges.helloOverMicronautClient());
                assertEquals(EchoController.HELLO, exchanges.helloOverJdkClient());
                assertEquals("ok " + (1 << 20), exchanges.echoOverMicronautClient(1 << 20));
                assertEquals(50, exchanges.serverSentEvents(50).size());
                List<String> messages = Exchanges.messages(10);
                Exchanges.assertEchoed(messages, exchanges.webSocketEcho(messages));
            }
            Channels channels = context.getBean(Channels.class);
            for (var classes : List.of(channels.bound, channels.accepted, channels.connected)) {
                assertFalse(classes.isEmpty());
                assertTrue(classes.stream().allMatch(c -> c.getName().startsWith("io.netty.channel.")),
                    classes::toString);
            }
            assertEquals(List.of(), RingwireCounters.all(), "Ringwire loops running");
        }
    }
}
