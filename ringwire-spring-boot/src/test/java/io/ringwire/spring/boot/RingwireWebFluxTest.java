package io.ringwire.spring.boot;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.spring.boot.Exchanges.Totals;
import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.codec.ServerSentEvent;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Spring Boot WebFlux application with ringwire-spring-boot on its class path and nothing else changed: its server
 * and its WebClient run on Ringwire. Each exchange (HTTP from the WebClient and from the JDK's HttpClient, 8 MiB
 * bodies streamed both ways, server-sent events, a WebSocket echo) comes back whole, makes Ringwire's counters grow,
 * and went through Ringwire's channels only; Actuator lists Ringwire's meters.
 */
@SpringBootTest(classes = EchoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
        "server.address=127.0.0.1",
        "ringwire.loops=2",
        "spring.reactor.netty.shutdown-quiet-period=0s",
        "management.endpoints.web.exposure.include=metrics"})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireWebFluxTest extends EchoApplicationTest {
    private static final long BODY = 8L * 1024 * 1024;

    private Totals before;

    @BeforeAll
    static void ringwireRunsHere() {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
    }

    @BeforeEach
    void countersBefore() {
        before = Totals.now();
    }

    @Test
    void theResourceFactoryHasRingwiresLoopsAsConfigured() {
        RingwireLoopResources loops = assertInstanceOf(RingwireLoopResources.class, resources.getLoopResources());
        assertEquals(2, ((MultiThreadIoEventLoopGroup) loops.onServer(true)).executorCount(), "ringwire.loops=2");
        assertEquals(Set.of(RingwireServerSocketChannel.class), channels.bound, "the server listens on Ringwire");
    }

    @Test
    void helloOverTheWebClientAndTheJdkHttpClient() {
        assertEquals(EchoApplication.HELLO, exchanges.helloOverWebClient());
        assertServedByRingwire(true);
        before = Totals.now();
        assertEquals(EchoApplication.HELLO, exchanges.helloOverJdkClient());
        assertServedByRingwire(false);
    }

    @Test
    void severalMebibytesStreamBothWaysThroughTheWebClient() {
        assertEquals("ok " + BODY, exchanges.echoOverWebClient(BODY));
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
        List<ServerSentEvent<String>> events = exchanges.serverSentEvents(200);
        assertEquals(200, events.size());
        for (int i = 0; i < events.size(); i++) {
            assertEquals("event " + i, events.get(i).data());
            assertEquals(Integer.toString(i), events.get(i).id());
            assertEquals("tick", events.get(i).event());
        }
        assertServedByRingwire(true);
    }

    @Test
    void webSocketEcho() {
        Set<Class<?>> clientChannels = ConcurrentHashMap.newKeySet();
        List<String> messages = Exchanges.messages(50);
        Exchanges.assertEchoed(messages, exchanges.webSocketEcho(messages, c -> clientChannels.add(c.getClass())));
        assertEquals(Set.of(RingwireSocketChannel.class), clientChannels, "the WebSocket client's connection");
        assertServedByRingwire(false);
    }

    @Test
    void actuatorListsRingwiresMeters() {
        assertEquals(EchoApplication.HELLO, exchanges.helloOverWebClient());
        @SuppressWarnings("unchecked")
        List<String> names = (List<String>) exchanges.actuator("/metrics").get("names");
        for (String meter : List.of("ringwire.loops", "ringwire.loop.enters", "ringwire.loop.sqes",
                "ringwire.loop.sqes.per.enter", "ringwire.loop.recvs", "ringwire.loop.recv.bytes",
                "ringwire.loop.writes", "ringwire.loop.write.bytes", "ringwire.loop.accepts",
                "ringwire.loop.registrations", "ringwire.loop.sync.enters", "ringwire.loop.dry.ring.fallbacks",
                "ringwire.loop.zero.copy.copied", "ringwire.loop.sendfile.bytes", "ringwire.loop.fixed.file.slots")) {
            assertTrue(names.contains(meter), () -> meter + " is not among " + names);
        }
        // one meter per loop, tagged with the loop's thread name
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> tags =
            (List<Map<String, Object>>) exchanges.actuator("/metrics/ringwire.loop.enters").get("availableTags");
        Map<String, Object> loop = tags.stream().filter(t -> "loop".equals(t.get("tag"))).findFirst()
            .orElseThrow(() -> new AssertionError("no loop tag: " + tags));
        @SuppressWarnings("unchecked")
        List<String> loopNames = (List<String>) loop.get("values");
        List<String> live = RingwireCounters.all().stream().map(RingwireCounters::name).toList();
        assertFalse(loopNames.isEmpty());
        assertTrue(live.containsAll(loopNames), () -> loopNames + " are not all among the live loops " + live);
        assertTrue(measurement("ringwire.loop.enters") > 0);
        assertTrue(measurement("ringwire.loop.sqes.per.enter") > 0);
        assertTrue(measurement("ringwire.loop.accepts") > 0);
        double loops = measurement("ringwire.loops");
        assertTrue(loops >= 1 && loops <= 2, () -> "ringwire.loops: " + loops);
    }

    private double measurement(String meter) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> measurements =
            (List<Map<String, Object>>) exchanges.actuator("/metrics/" + meter).get("measurements");
        return ((Number) measurements.get(0).get("value")).doubleValue();
    }

    /**
     * @param webClient whether the application's WebClient made the exchange (its connections are checked too)
     */
    private void assertServedByRingwire(boolean webClient) {
        Totals after = Totals.now();
        assertTrue(after.grewSince(before), () -> "Ringwire's counters did not all grow: " + before + " -> " + after);
        assertEquals(Set.of(RingwireServerSocketChannel.class), channels.bound, "the server's listening channel");
        assertEquals(Set.of(RingwireSocketChannel.class), channels.accepted, "the server's connections");
        if (webClient) {
            assertEquals(Set.of(RingwireSocketChannel.class), channels.connected, "the WebClient's connections");
        }
    }
}
