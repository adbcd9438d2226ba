package io.ringwire.micronaut;

import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.StreamingHttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.sse.SseClient;
import io.micronaut.http.sse.Event;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.websocket.WebSocketClient;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.micronaut.Exchanges.Totals;
import io.ringwire.micronaut.app.Channels;
import io.ringwire.micronaut.app.EchoController;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Micronaut application whose default event loops name Ringwire as their transport: its HTTP server and its HTTP,
 * streaming, SSE and WebSocket clients run on Ringwire. Each exchange (HTTP from Micronaut's client and from the JDK's,
 * 8 MiB bodies streamed both ways, server-sent events, a WebSocket echo) comes back whole, makes Ringwire's counters
 * grow, and went through Ringwire's channels only.
 */
@MicronautTest
@Property(name = "micronaut.server.host", value = "127.0.0.1")
@Property(name = "micronaut.netty.event-loops.default.transport", value = "ringwire,nio")
@Property(name = "micronaut.netty.event-loops.default.num-threads", value = "2")
@Property(name = "micronaut.server.netty.parent.event-loop-group", value = "default")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireMicronautTest {
    private static final long BODY = 8L * 1024 * 1024;

    @Inject
    EmbeddedServer server;
    @Inject
    @Client("/")
    HttpClient http;
    @Inject
    @Client("/")
    StreamingHttpClient streaming;
    @Inject
    @Client("/")
    SseClient sse;
    @Inject
    @Client("/")
    WebSocketClient webSocket;
    @Inject
    EventLoopGroup loops;
    @Inject
    Channels channels;

    private Exchanges exchanges;
    private Totals before;

    @BeforeAll
    static void ringwireRunsHere() {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
    }

    @BeforeEach
    void connect() {
        exchanges = new Exchanges(server.getURL(), http, streaming, sse, webSocket);
        before = Totals.now();
    }

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void theDefaultEventLoopsAreRingwiresAsConfigured() {
        assertEquals(2, ((MultiThreadIoEventLoopGroup) loops).executorCount(), "num-threads=2");
        assertEquals(Set.of(RingwireServerSocketChannel.class), channels.bound, "the server listens on Ringwire");
        assertFalse(RingwireCounters.all().isEmpty(), "Ringwire loops run: one has the server's listener");
    }

    @Test
    void helloOverMicronautsClientAndTheJdkHttpClient() {
        assertEquals(EchoController.HELLO, exchanges.helloOverMicronautClient());
        assertServedByRingwire(true);
        before = Totals.now();
        assertEquals(EchoController.HELLO, exchanges.helloOverJdkClient());
        assertServedByRingwire(false);
    }

    @Test
    void severalMebibytesStreamBothWaysThroughMicronautsClient() {
        assertEquals("ok " + BODY, exchanges.echoOverMicronautClient(BODY));
        assertServedByRingwire(true);
    }

    @Test
    void severalMebibytesUpAndDownWithTheJdkHttpClient() {
        assertEquals("ok " + BODY, exchanges.uploadOverJdkClient(BODY));
        assertServedByRingwire(false);
        before = Totals.now();
        assertEquals("ok " + BODY, exchanges.downloadOverJdkClient(BODY));
        assertServedByRingwire(false);
    }

    @Test
    void serverSentEvents() {
        List<Event<String>> events = exchanges.serverSentEvents(200);
        assertEquals(200, events.size());
        for (int i = 0; i < events.size(); i++) {
            assertEquals("event " + i, events.get(i).getData());
            assertEquals(Integer.toString(i), events.get(i).getId());
            assertEquals("tick", events.get(i).getName());
        }
        assertServedByRingwire(true);
    }

    @Test
    void webSocketEcho() throws InterruptedException {
        List<String> messages = Exchanges.messages(50);
        Exchanges.assertEchoed(messages, exchanges.webSocketEcho(messages));
        assertServedByRingwire(true);
    }

    /**
     * @param micronautClient whether Micronaut's client made the exchange (its connections are checked too)
     */
    private void assertServedByRingwire(boolean micronautClient) {
        Totals after = Totals.now();
        assertTrue(after.grewSince(before), () -> "Ringwire's counters did not all grow: " + before + " -> " + after);
        assertEquals(Set.of(RingwireServerSocketChannel.class), channels.bound, "the server's listening channel");
        assertEquals(Set.of(RingwireSocketChannel.class), channels.accepted, "the server's connections");
        if (micronautClient) {
            assertEquals(Set.of(RingwireSocketChannel.class), channels.connected, "the client's connections");
        }
    }
}
