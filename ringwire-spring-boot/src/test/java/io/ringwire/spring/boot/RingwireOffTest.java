package io.ringwire.spring.boot;

import io.ringwire.spring.boot.app.EchoApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application of {@link RingwireWebFluxTest} with {@code ringwire.enabled=false}: it serves on Netty's default
 * transport, as without Ringwire, no Ringwire loop ever runs in its JVM, and Actuator has no Ringwire meter.
 */
@SpringBootTest(classes = EchoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
        "server.address=127.0.0.1",
        "ringwire.enabled=false",
        "spring.reactor.netty.shutdown-quiet-period=0s",
        "management.endpoints.web.exposure.include=metrics"})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireOffTest extends EchoApplicationTest {
    @Test
    void servesOnNettysDefaultTransport() {
        assertServesOnNettysDefault();
        @SuppressWarnings("unchecked")
        List<String> meters = (List<String>) exchanges.actuator("/metrics").get("names");
        assertTrue(meters.stream().noneMatch(m -> m.startsWith("ringwire.")), meters::toString);
    }
}
