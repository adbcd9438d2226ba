package io.ringwire.lab.cli;

import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.results.RunResult;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sweep's plan, and its table and charts from given runs and counts; nothing runs, nothing is timed. */
class SweepTest {
    private static RunResult run(String variant, String server, int round, double rate, double cpuUsPerMsg,
                                 double p50, double p99, double iterations) {
        double nan = Double.NaN;
        return new RunResult("echo", variant, server, round, 2.0, rate, rate, p50, p99, p99, p99, nan, nan, nan,
            cpuUsPerMsg, 0.1, 0, 0.1, 0, 100, 80, 40, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, iterations, 0,
            0, 0, 0.01);
    }

    @Test
    void thePlanTakesEachConnectionCountInTurnWithEveryRateFromTheLowestUp() {
        assertEquals(List.of(new Sweep.Point(50, 500), new Sweep.Point(50, 2000), new Sweep.Point(500, 500),
            new Sweep.Point(500, 2000)), Sweep.plan(List.of(50, 500, 50), List.of(2000.0, 500.0, 2000.0)));
        assertThrows(IllegalArgumentException.class, () -> Sweep.plan(List.of(0), List.of(500.0)));
        assertThrows(IllegalArgumentException.class, () -> Sweep.plan(List.of(50), List.of(0.0)));
        assertThrows(IllegalArgumentException.class, () -> Sweep.plan(List.of(), List.of(500.0)));
    }

    @Test
    void byDefaultItSweepsSixRatesOverFiftyAndFiveHundredConnectionsOnTheJavaAndCServers() {
        Sweep sweep = (Sweep) new CommandLine(new Lab()).parseArgs("sweep", "--servers", "ringwire,netty-epoll",
            "--seconds", "1").subcommand().commandSpec().userObject();
        assertEquals(List.of(500.0, 2000.0, 5000.0, 10000.0, 20000.0, 40000.0), sweep.rates);
        assertEquals(List.of(50, 500), sweep.conns);
        Map<String, Sweep.Point> points = new LinkedHashMap<>();
        Map<String, Sweep.Window> windows = new LinkedHashMap<>();
        List<Experiment> e = sweep.experiments(sweep.settings(), points, windows);
        assertEquals(12, e.size());
        assertEquals(1.0, e.get(0).settings().seconds(), "the window per point is --seconds");
        assertEquals("50 conns × 128 B at 500 msgs/s", e.get(0).variant());
        assertEquals(new Sweep.Point(500, 40_000), points.get(e.get(11).variant()));
        assertEquals(List.of(Competitor.RINGWIRE, Competitor.NETTY_IO_URING, Competitor.NETTY_EPOLL,
            Competitor.NETTY_NIO, Competitor.C_IO_URING, Competitor.C_EPOLL), Competitor.sweep());
    }

    @Test
    void itCountsPerMessageAndDrawsAChartPerConnectionCount() {
        Map<String, Sweep.Point> points = new LinkedHashMap<>();
        Map<String, Sweep.Window> windows = new LinkedHashMap<>();
        points.put("a", new Sweep.Point(50, 500));
        points.put("b", new Sweep.Point(50, 2000));
        points.put("c", new Sweep.Point(500, 500));
        for (String v : points.keySet()) {
            windows.put(v, new Sweep.Window());
        }
        // 500 msgs/s for 2 s: 1,000 messages; 1,500 + 500 switches, 3,000 system calls, 1,000 loop iterations
        windows.get("a").put("netty-epoll", 1, new double[] {2, 1500, 500, Double.NaN});
        windows.get("a").put("c-epoll", 1, new double[] {2, 1000, 0, 3000});
        List<RunResult> runs = List.of(run("a", "netty-epoll", 1, 500, 20, 50, 90, Double.NaN),
            run("a", "c-epoll", 1, 500, 5, 40, 80, 1000), run("b", "netty-epoll", 1, 2000, 10, 50, 100, Double.NaN),
            run("b", "c-epoll", 1, 2000, 4, 45, 95, Double.NaN), run("c", "netty-epoll", 1, 500, 30, 60, 120,
                Double.NaN));
        Sweep.Report report = new Sweep.Report(points, windows, 128);
        Map<Integer, List<Sweep.Row>> rows = report.rows(runs);
        assertEquals(List.of(50, 500), List.copyOf(rows.keySet()));
        Sweep.Row epoll = rows.get(50).get(0);
        assertEquals("netty-epoll", epoll.server());
        assertEquals(2.0, epoll.switchesPerMsg(), 1e-9);
        assertEquals(1.5, epoll.wakeupsPerMsg(), 1e-9);
        assertTrue(Double.isNaN(epoll.callsPerMsg()), "netty-epoll counts no system calls");
        assertTrue(Double.isNaN(epoll.waitsPerMsg()), "netty-epoll counts no loop iterations");
        Sweep.Row c = rows.get(50).get(1);
        assertEquals(3.0, c.callsPerMsg(), 1e-9);
        assertEquals(1.0, c.waitsPerMsg(), 1e-9);
        assertTrue(Double.isNaN(rows.get(50).get(2).switchesPerMsg()), "no counts for that window");

        String text = report.text(runs);
        assertTrue(text.contains("0.25"), () -> "c-epoll at 0.25 × netty-epoll's CPU:\n" + text);
        Document html = Jsoup.parse(report.html(runs));
        assertEquals(4, html.select("svg").size(), "CPU and latency, for each of two connection counts");
        assertEquals(2, html.select("svg").get(0).select("path").size(), "a line per server");
        assertEquals(4, html.select("svg").get(1).select("path").size(), "p50 and p99 per server");
        assertEquals(1, html.select("svg").get(2).select("path").size(), "one server at 500 connections");
    }

    @Test
    void aWindowTakesTheSystemCallsTheServerCounted() {
        Sweep.Window w = new Sweep.Window();
        long self = ProcessHandle.current().pid();
        w.edge(Competitor.C_EPOLL, 1, self, true, Map.of());
        w.edge(Competitor.C_EPOLL, 1, self, false, Map.of("syscalls", 300.0, "enters", 100.0));
        w.edge(Competitor.RINGWIRE, 1, self, true, Map.of());
        w.edge(Competitor.RINGWIRE, 1, self, false, Map.of("enters", 100.0));
        w.edge(Competitor.NETTY_EPOLL, 1, self, true, Map.of());
        w.edge(Competitor.NETTY_EPOLL, 1, self, false, Map.of());
        assertEquals(300.0, w.counts("c-epoll", 1)[3]);
        assertEquals(100.0, w.counts("ringwire", 1)[3], "Ringwire's io_uring_enter calls");
        assertTrue(Double.isNaN(w.counts("netty-epoll", 1)[3]));
        assertTrue(w.counts("netty-epoll", 1)[0] >= 0 && w.counts("netty-epoll", 1)[1] >= 0);
    }

    @Test
    void contextSwitchesAreReadFromProc() {
        assertEquals(List.of(12L, 3L), java.util.Arrays.stream(ProcessStats.parseContextSwitches(List.of(
            "Name:\tjava", "voluntary_ctxt_switches:\t12", "nonvoluntary_ctxt_switches:\t3"))).boxed().toList());
        long self = ProcessHandle.current().pid();
        long[] cs = ProcessStats.contextSwitches(self);
        assertTrue(cs[0] > 0 && cs[1] >= 0, () -> java.util.Arrays.toString(cs));
    }
}
