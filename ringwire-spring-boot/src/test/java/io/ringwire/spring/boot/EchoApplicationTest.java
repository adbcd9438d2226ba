package io.ringwire.spring.boot;

import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.spring.boot.app.EchoApplication.Channels;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.reactive.function.client.WebClient;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A test of the running {@link EchoApplication}: what it injects (the port, Boot's WebClient builder, the
 * {@link ReactorResourceFactory}, the channels the application used), and {@link Exchanges} over them, made before
 * each test and closed after it.
 */
abstract class EchoApplicationTest {
    @LocalServerPort
    int port;
    @Autowired
    WebClient.Builder webClients;
    @Autowired
    ReactorResourceFactory resources;
    @Autowired
    Channels channels;

    Exchanges exchanges;

    @BeforeEach
    void connect() {
        exchanges = new Exchanges(port, webClients, resources);
    }

    @AfterEach
    void close() {
        exchanges.close();
    }

    /** Exchanges a little of everything and checks that no Ringwire channel or loop took part. */
    void assertServesOnNettysDefault() {
        assertEquals(EchoApplication.HELLO, exchanges.helloOverWebClient());
        assertEquals(EchoApplication.HELLO, exchanges.helloOverJdkClient());
        assertEquals("ok " + (1 << 20), exchanges.echoOverWebClient(1 << 20));
        assertEquals(50, exchanges.serverSentEvents(50).size());
        List<String> messages = Exchanges.messages(10);
        Exchanges.assertEchoed(messages, exchanges.webSocketEcho(messages, c -> channels.connected.add(c.getClass())));
        assertFalse(resources.getLoopResources() instanceof RingwireLoopResources);
        for (var classes : List.of(channels.bound, channels.accepted, channels.connected)) {
            assertFalse(classes.isEmpty());
            assertTrue(classes.stream().allMatch(c -> c.getName().startsWith("io.netty.channel.")),
                classes::toString);
        }
        assertEquals(List.of(), RingwireCounters.all(), "Ringwire loops running");
    }
}
