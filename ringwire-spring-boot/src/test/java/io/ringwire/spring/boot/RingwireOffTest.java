package io.ringwire.spring.boot;

import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.spring.boot.app.EchoApplication.Channels;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.reactive.function.client.WebClient;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application of {@link RingwireWebFluxTest} with {@code ringwire.enabled=false}: it serves on Netty's default
 * transport, as without Ringwire, and no Ringwire loop ever runs in its JVM.
 */
@SpringBootTest(classes = EchoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
        "server.address=127.0.0.1",
        "ringwire.enabled=false",
        "spring.reactor.netty.shutdown-quiet-period=0s",
        "management.endpoints.web.exposure.include=metrics"})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireOffTest {
    @LocalServerPort
    int port;
    @Autowired
    WebClient.Builder webClients;
    @Autowired
    ReactorResourceFactory resources;
    @Autowired
    Channels channels;

    @Test
    void servesOnNettysDefaultTransport() {
        try (Exchanges exchanges = new Exchanges(port, webClients, resources)) {
            assertEquals(EchoApplication.HELLO, exchanges.helloOverWebClient());
            assertEquals(EchoApplication.HELLO, exchanges.helloOverJdkClient());
            assertEquals("ok " + (1 << 20), exchanges.echoOverWebClient(1 << 20));
            assertEquals(50, exchanges.serverSentEvents(50).size());
            List<String> messages = Exchanges.messages(10);
            Exchanges.assertEchoed(messages,
                exchanges.webSocketEcho(messages, c -> channels.connected.add(c.getClass())));
            @SuppressWarnings("unchecked")
            List<String> meters = (List<String>) exchanges.actuator("/metrics").get("names");
            assertTrue(meters.stream().noneMatch(m -> m.startsWith("ringwire.")), meters::toString);
        }
        assertFalse(resources.getLoopResources() instanceof RingwireLoopResources);
        assertNettysDefault(channels);
    }

    /** @param channels what an application's server and clients used: none of them Ringwire's */
    static void assertNettysDefault(Channels channels) {
        for (var classes : List.of(channels.bound, channels.accepted, channels.connected)) {
            assertFalse(classes.isEmpty());
            assertTrue(classes.stream().allMatch(c -> c.getName().startsWith("io.netty.channel.")),
                classes::toString);
        }
        assertEquals(List.of(), RingwireCounters.all(), "Ringwire loops running");
    }
}
