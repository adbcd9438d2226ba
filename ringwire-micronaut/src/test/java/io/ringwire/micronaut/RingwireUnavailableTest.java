package io.ringwire.micronaut;

import io.ringwire.transport.Ringwire;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The configuration of {@link RingwireMicronautTest} ({@code transport=ringwire,nio}) where Ringwire cannot run (this
 * JVM has {@code -Dringwire.disable=true}; the build runs this class in a JVM of its own): the application starts on
 * the next transport listed, and one line in its log says why.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RingwireUnavailableTest {
    @BeforeAll
    static void ringwireIsDisabled() {
        assumeTrue(Boolean.getBoolean(Ringwire.DISABLE_PROPERTY), "run with -D" + Ringwire.DISABLE_PROPERTY + "=true");
    }

    @Test
    void startsOnTheNextTransportAndSaysWhy() throws InterruptedException {
        // slf4j-simple, the tests' logger, writes each line to the System.err of the moment
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new TeeOutputStream(err, log), true, StandardCharsets.UTF_8));
        try {
            RingwireOffTest.assertServesOnNettysDefault(Map.of(
                "micronaut.server.host", "127.0.0.1",
                "micronaut.netty.event-loops.default.transport", "ringwire,nio",
                "micronaut.server.netty.parent.event-loop-group", "default"));
        } finally {
            System.setErr(err);
        }
        List<String> lines = log.toString(StandardCharsets.UTF_8).lines()
            .filter(l -> l.contains("Ringwire is unavailable")).toList();
        assertEquals(1, lines.size(), () -> "one line says why: " + lines);
        assertTrue(lines.get(0).endsWith("Ringwire is unavailable, so Micronaut's event loops use the next transport "
            + "listed: Ringwire is disabled by -Dringwire.disable=true"), lines.get(0));
    }

    /** Writes to two streams. */
    private static final class TeeOutputStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeOutputStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
