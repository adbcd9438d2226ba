package io.ringwire.transport.verify;

import io.ringwire.transport.RecordingLeakDetector;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs last (surefire runs classes alphabetically, and this package sorts after testsuite): after every other test of
 * this JVM has run with the leak detector at PARANOID, forces the collector and the detector's reporting, then fails
 * if any ByteBuf leaked, here or in a JVM of an earlier execution that reported its leaks as it exited (the testsuite's
 * forks: see {@link RecordingLeakDetector}).
 */
class NoResourceLeakTest {
    @Test
    void shouldHaveLeakedNothing() throws Exception {
        RecordingLeakDetector.collect();
        assertTrue(RecordingLeakDetector.LEAKS.isEmpty(), () -> RecordingLeakDetector.LEAKS.size() + " leak(s): "
            + String.join("\n", RecordingLeakDetector.LEAKS));
    }

    @Test
    void otherJvmsLeakedNothing() {
        String dir = System.getProperty(RecordingLeakDetector.REPORTS);
        assumeTrue(dir != null && !dir.isEmpty(), "no directory of leak reports given (-D"
            + RecordingLeakDetector.REPORTS + ")");
        List<String> leaks = RecordingLeakDetector.reportedBy(Path.of(dir));
        assertTrue(leaks.isEmpty(), () -> String.join("\n", leaks));
    }
}
