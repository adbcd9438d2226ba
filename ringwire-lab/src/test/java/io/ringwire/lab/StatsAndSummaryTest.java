package io.ringwire.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class StatsAndSummaryTest {
    @Test
    void shouldTakeMediansAndRanges() {
        assertEquals(2.0, Stats.median(List.of(3.0, 1.0, 2.0)));
        assertEquals(2.5, Stats.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertArrayEquals(new double[] {1.0, 4.0}, Stats.range(List.of(4.0, 1.0, 2.0)));
        assertTrue(Double.isNaN(Stats.ratio(1, Double.NaN)));
        assertThrows(IllegalArgumentException.class, () -> Stats.median(List.of()));
    }

    @Test
    void shouldParseCpuTicksAfterACommandWithSpacesAndParens() {
        String stat = "1234 (java (x) y) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 30 0";
        assertEquals(175, ProcessStats.parseCpuTicks(stat));
    }

    @Test
    void shouldSummariseAgainstEpollAndWriteJson() {
        List<RunResult> runs = List.of(
            new RunResult("netty-epoll", 1, 100, 10, 20, 30, 10.0, 0.9, 0.5, 100, 0, 0),
            new RunResult("ringwire", 1, 150, 8, 15, 25, 8.0, 0.9, 0.6, 110, 0, 0),
            new RunResult("netty-epoll", 2, 120, 10, 20, 30, 12.0, 0.9, 0.5, 100, 0, 0),
            new RunResult("ringwire", 2, 130, 8, 15, 25, 6.0, 0.9, 0.6, 120, 0, 0));
        Summary s = Summary.of(runs);
        Summary.Row rw = s.rows().get(1);
        assertEquals("ringwire", rw.server());
        assertEquals(140, rw.rps(), 1e-9);
        assertEquals(140 / 110.0, rw.rpsVsEpoll(), 1e-9);
        assertEquals(7.0 / 11.0, rw.cpuVsEpoll(), 1e-9);
        assertEquals(130, rw.rpsMin());
        assertEquals(150, rw.rpsMax());
        assertTrue(s.verdict().startsWith("verdict: ringwire spends the least server CPU per round trip (7.00 µs)"),
            s.verdict());
        assertEquals(3, s.table().lines().count());
        String json = s.json("echo", new EchoExperiment.Settings(List.of(Competitor.RINGWIRE), 2, 1, 128, 1, 1, 1, 1),
            runs);
        assertTrue(json.contains("\"server\": \"ringwire\", \"round\": 2, \"rps\": 130.0000"), json);
        assertTrue(json.trim().endsWith("}"));
        assertEquals(json.chars().filter(c -> c == '{').count(), json.chars().filter(c -> c == '}').count());
    }

    @Test
    void shouldRejectUnknownServersAndNonLoopbackTargets() {
        assertThrows(IllegalArgumentException.class, () -> Competitor.of("netty-kqueue"));
        assertThrows(IllegalArgumentException.class, () -> new EchoLoad(
            new java.net.InetSocketAddress("10.0.0.1", 9), 1, 128, 1));
    }
}
