package io.ringwire.lab;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny end-to-end run of the echo workload: real server processes, every byte checked. */
class EchoExperimentTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRunEchoAgainstRingwireAndBlockingWithoutMismatches() throws Exception {
        EchoExperiment.Settings s = new EchoExperiment.Settings(
            List.of(Competitor.RINGWIRE, Competitor.BLOCKING_VIRTUAL), 1, 8, 200, 2, 0.5, 1.0, 1);
        List<RunResult> runs = new EchoExperiment(s, line -> { }).run();
        assertEquals(2, runs.size());
        for (RunResult r : runs) {
            assertEquals(0, r.mismatches(), r.toString());
            assertEquals(0, r.errors(), r.toString());
            assertTrue(r.rps() > 0, r.toString());
            assertTrue(r.serverCpuUsPerRt() > 0, r.toString());
            assertTrue(r.peakRssMiB() > 0, r.toString());
        }
    }
}
