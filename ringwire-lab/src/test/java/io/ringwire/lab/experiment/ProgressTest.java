package io.ringwire.lab.experiment;

import io.ringwire.lab.report.SummaryTest;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lab's run lines: which run each is, what it measured, on one line. */
public class ProgressTest {
    /** The terminal width the lab's default output is written for. */
    public static final int COLUMNS = 120;

    /** Asserts that every line of {@code text} fits in {@link #COLUMNS}. */
    public static void assertFits(String text) {
        for (String line : text.lines().toList()) {
            assertTrue(line.codePointCount(0, line.length()) <= COLUMNS,
                () -> line.length() + " columns: " + line + "\n" + text);
        }
    }

    @Test
    void aRunLineSaysWhichRunItIsAndStaysOnOneLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        // the default suite's 50 runs, 8 minutes: the clock and the time left at their widest
        Progress p = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 50, false,
            System.nanoTime() - 479_000_000_000L);
        Experiment e = Workloads.singleStream(new Experiment.Settings(Competitor.standard(), 2, 2, 6, 3, 1), 1024,
            16384);
        RunResult worst = SummaryTest.run(e, "blocking-platform", 2, 1_234_567, 12.34, 0.99, 0, 0.9, 3, 5);
        for (int i = 0; i < 41; i++) {
            p.starting(e.workload(), "round 2/2", "blocking-platform");
            p.finished(Experiment.shortLine(worst), Experiment.problems(worst), Experiment.oneLine(worst));
        }
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(82, lines.size(), "a line per run, and one for what went wrong: " + lines);
        String last = lines.get(80);
        assertTrue(last.startsWith("[41/50 ") && last.contains(" left] single-stream "), last);
        assertTrue(last.contains("single-stream round 2/2 blocking-platform 1,234,567/s  p99     420 µs  12.34 "
            + "µs/msg CONTAMINATED"), last);
        assertEquals("        FAILED: 3 mismatched bytes, 0 errors; 5 connections starved (answered only after the "
            + "window)", lines.get(81));
        assertFits(last + "\n" + lines.get(81));
        p.starting("echo", "round 1/2", "ringwire");
        p.note("a note while a run's line is open starts on a line of its own");
        assertTrue(bytes.toString(StandardCharsets.UTF_8).endsWith("ringwire        \na note while"
            + " a run's line is open starts on a line of its own\n"), bytes.toString(StandardCharsets.UTF_8));
    }
}
