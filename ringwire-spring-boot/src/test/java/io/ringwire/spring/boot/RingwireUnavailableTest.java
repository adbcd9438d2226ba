package io.ringwire.spring.boot;

import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.transport.Ringwire;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The application of {@link RingwireWebFluxTest} where Ringwire cannot run (this JVM has
 * {@code -Dringwire.disable=true}; the build runs this class in a JVM of its own): it starts on Netty's default
 * transport, and one line in its log says why.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = EchoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"server.address=127.0.0.1", "spring.reactor.netty.shutdown-quiet-period=0s"})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireUnavailableTest extends EchoApplicationTest {
    @BeforeAll
    static void ringwireIsDisabled() {
        assumeTrue(Boolean.getBoolean(Ringwire.DISABLE_PROPERTY), "run with -D" + Ringwire.DISABLE_PROPERTY + "=true");
    }

    @Test
    void startsOnNettysDefaultTransportAndSaysWhy(CapturedOutput output) {
        assertServesOnNettysDefault();
        List<String> lines = output.getAll().lines().filter(l -> l.contains("Ringwire is unavailable")).toList();
        assertEquals(1, lines.size(), () -> "one line says why: " + lines);
        assertTrue(lines.get(0).endsWith("Ringwire is unavailable, so Reactor Netty runs on Netty's default "
            + "transport: Ringwire is disabled by -Dringwire.disable=true"), lines.get(0));
    }
}
