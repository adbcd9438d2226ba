package io.ringwire.lab.report;

import io.ringwire.lab.load.RedisBenchmark;
import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Warmup;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.server.ServerStats;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Stats;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The result maths: medians, ranges, ratios to netty-epoll, verdicts; /proc parsing. */
public class SummaryTest {
    static RunResult run(String workload, String server, int round, double rate, double cpuUsPerMsg, double heap,
                         long mismatches) {
        double nan = Double.NaN;
        return new RunResult(workload, "v", server, round, 2.0, rate, nan, 10, 20, 30, 40, nan, nan, nan, cpuUsPerMsg,
            0.9, 0.01, 0.5, 0, 100, 80, 40, heap, heap / 4, 1, 0, 0, 64, server.equals("ringwire") ? 8 : nan, nan, nan,
            nan, nan, mismatches, 0, 0, 0.01);
    }

    /**
     * A run of experiment {@code e}; {@code cores} is both the server's and the generator's (saturated at ≥ 0.9),
     * {@code lagUs} the open loop's p99 lateness, {@code foreign} the other processes' cores.
     */
    public static RunResult run(Experiment e, String server, int round, double rate, double cpu, double cores,
                         double lagUs, double foreign, long mismatches, long starved) {
        return run(e.workload(), e.variant(), server, round, rate, cpu, cores, lagUs, foreign, mismatches, starved);
    }

    /** {@link #run(Experiment, String, int, double, double, double, double, double, long, long)} by name. */
    public static RunResult run(String workload, String variant, String server, int round, double rate, double cpu,
                                double cores, double lagUs, double foreign, long mismatches, long starved) {
        double nan = Double.NaN;
        boolean open = variant.contains("msgs/s");
        return new RunResult(workload, variant, server, round, 2.0, rate, open ? rate : nan, 95, 420, 900,
            2000, nan, nan, open ? lagUs : nan, cpu, cores, 0.01, cores, 0, 300, 80, 40, 120, 9, 4, 2, 10, 64,
            server.contains("ringwire") ? 8 : nan, nan, nan, nan, nan, mismatches, 0, starved, foreign);
    }

    /** @return {@code r} with its software counters per 1,000 messages */
    static RunResult withCounters(RunResult r, double voluntary, double involuntary, double minorFaults,
                                  double majorFaults, double migrations) {
        return new RunResult(r.workload(), r.variant(), r.server(), r.round(), r.warmupSeconds(), r.rate(),
            r.offeredRate(), r.p50Us(), r.p99Us(), r.p999Us(), r.maxUs(), r.streamsPerSec(), r.streamP99Ms(),
            r.sendLagP99Us(), r.serverCpuUsPerMsg(), r.serverUtil(), r.jitUtil(), r.loadgenUtil(), r.labJitUtil(),
            r.peakRssMiB(), r.nonHeapMiB(), r.rssOutsideHeapMiB(), r.heapPeakMiB(), r.liveHeapMiB(), r.directPeakMiB(),
            r.gcCount(), r.gcMillis(), r.allocBytesPerMsg(), voluntary, involuntary, minorFaults, majorFaults,
            migrations, r.sqesPerEnter(), r.iovecsPerWrite(), r.bytesPerRecv(), r.bufferRingEmpty(),
            r.loopIterations(), r.mismatches(), r.errors(), r.starved(), r.foreignCores(), r.profiled());
    }

    @Test
    void theWideTableEndsWithEachServersSoftwareCountersAndTheCompactOneLeavesThemOut() {
        Summary s = Summary.of(List.of(withCounters(run("echo", "ringwire", 1, 1000, 5, 10, 0), 120, 3, 0.5, 0, 0),
            withCounters(run("echo", "ringwire", 2, 1000, 5, 10, 0), 140, 5, 0.7, 0, 0),
            run("echo", "netty-epoll", 1, 1000, 6, 10, 0))).get(0);
        Summary.Row rw = s.row("ringwire");
        assertEquals(130, rw.voluntaryCtxSwitchesPerKMsg(), 1e-9);
        assertEquals(4, rw.involuntaryCtxSwitchesPerKMsg(), 1e-9);
        assertEquals(0.6, rw.minorFaultsPerKMsg(), 1e-9);
        assertEquals(0, rw.majorFaultsPerKMsg());
        assertEquals(0, rw.cpuMigrationsPerKMsg());
        assertTrue(Double.isNaN(s.row("netty-epoll").voluntaryCtxSwitchesPerKMsg()), "not read: unknown, not 0");
        String last = s.table().lines().reduce((a, b) -> b).orElseThrow();
        assertEquals("per 1,000 msgs, context switches voluntary/involuntary, page faults minor/major, CPU "
            + "migrations: ringwire 130/4.00, 0.60/0.00, 0.00", last, s.table());
        assertFalse(s.compactTable().contains("context switches"), s.compactTable());
    }

    /** An open-loop run at 20k msgs/s whose generator was {@code lagUs} late at p99. */
    static RunResult openLoop(String server, int round, double lagUs) {
        double nan = Double.NaN;
        return new RunResult("echo", "v", server, round, 2.0, 20_000, 20_000, 10, 20, 30, 40, nan, nan, lagUs, 17.0,
            0.35, 0.01, 0.6, 0, 100, 80, 40, 30, 8, 1, 0, 0, 64, nan, nan, nan, nan, nan, 0, 0, 0, 0.01);
    }

    @Test
    void openLoopVerdictNamesTheServersTheGeneratorFellBehindOn() {
        Summary s = Summary.of(List.of(openLoop("ringwire", 1, 90), openLoop("netty-epoll", 1, 100),
            openLoop("blocking-platform", 1, 9000), openLoop("ringwire", 2, 95), openLoop("netty-epoll", 2, 110),
            openLoop("blocking-platform", 2, 8000))).get(0);
        assertTrue(s.verdict().contains("fell behind against blocking-platform, so their load"), s.verdict());
        Summary onTime = Summary.of(List.of(openLoop("ringwire", 1, 90), openLoop("netty-epoll", 1, 100))).get(0);
        assertTrue(!onTime.verdict().contains("fell behind"), onTime.verdict());
    }

    @Test
    void openLoopVerdictGivesTheMinWaitVariantsTradeOfCpuAndLatency() {
        Summary s = Summary.of(List.of(openLoop("ringwire", 1, 90), openLoop("ringwire-minwait", 1, 90),
            openLoop("netty-epoll", 1, 100))).get(0);
        assertTrue(s.verdict().contains("ringwire-minwait 1.00× netty-epoll's CPU/msg"), s.verdict());
        assertTrue(s.verdict().contains("at a median latency of 10 µs against ringwire's 10"), s.verdict());
    }

    @Test
    void starvedConnectionsAreNamedInTheVerdictApartFromErrors() {
        double nan = Double.NaN;
        RunResult starving = new RunResult("rpc-backend", "v", "blocking-virtual", 1, 2.0, 10_000, nan, 10, 20, 30,
            4_200_000, nan, nan, nan, 30, 0.9, 0.01, 0.5, 0, 100, 80, 40, 30, 8, 1, 0, 0, 64, nan, nan, nan, nan, nan,
            0, 0, 5, 0.01);
        Summary s = Summary.of(List.of(run("rpc-backend", "netty-epoll", 1, 100, 10.0, 50, 0), starving)).get(0);
        Summary.Row row = s.row("blocking-virtual");
        assertEquals(5, row.starved());
        assertTrue(row.clean(), "a starved connection is answered, its bytes checked: not an error");
        assertTrue(s.verdict().contains("blocking-virtual starved 5 connections"), s.verdict());
        assertTrue(!s.verdict().contains("FAILED"), s.verdict());
        assertTrue(s.table().lines().anyMatch(l -> l.startsWith("blocking-virtual") && l.endsWith(" 5")), s.table());
    }

    @Test
    void limitSaysWhichSideWasSaturated() {
        assertEquals("server", Summary.limit(0.97, 0.80, false));
        assertEquals("generator", Summary.limit(0.70, 0.95, false));
        assertEquals("both", Summary.limit(0.95, 0.92, false));
        assertEquals("neither", Summary.limit(0.50, 0.40, false));
        assertEquals("fixed load", Summary.limit(0.30, 0.20, true));
        assertEquals("generator", Summary.limit(0.30, 0.99, true)); // it could not keep its schedule
        assertEquals("?", Summary.limit(0.50, Double.NaN, false)); // redis-benchmark: its CPU is not known
    }

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
        // with the children that ended (cutime 0, cstime 0 here; 7 and 3 below)
        assertEquals(175, ProcessStats.parseCpuTicksWithChildren(stat));
        assertEquals(185, ProcessStats.parseCpuTicksWithChildren(
            "1234 (java (x) y) S 1 2 3 4 5 6 7 8 9 10 150 25 7 3 20 0 30 0"));
    }

    @Test
    void shouldSummarisePerWorkloadAgainstEpoll() {
        List<RunResult> runs = List.of(
            run("echo", "netty-epoll", 1, 100, 10.0, 50, 0),
            run("echo", "ringwire", 1, 150, 8.0, 40, 0),
            run("echo", "ringwire", 2, 130, 6.0, 30, 0),
            run("echo", "netty-epoll", 2, 120, 12.0, 50, 0),
            run("single-stream", "ringwire", 1, 1000, 1.0, 20, 0),
            run("single-stream", "netty-epoll", 1, 900, 2.0, 60, 0));
        List<Summary> all = Summary.of(runs);
        assertEquals(2, all.size());
        Summary echo = all.get(0);
        assertEquals("echo", echo.workload());
        Summary.Row rw = echo.row("ringwire");
        assertEquals(140, rw.rate(), 1e-9);
        assertEquals(140 / 110.0, rw.rateVsEpoll(), 1e-9);
        assertEquals(7.0 / 11.0, rw.cpuVsEpoll(), 1e-9);
        assertEquals(130, rw.rateMin());
        assertEquals(150, rw.rateMax());
        assertEquals(8, rw.sqesPerEnter());
        assertTrue(Double.isNaN(echo.row("netty-epoll").sqesPerEnter()), "n only exists for Ringwire");
        assertEquals(1.0, echo.row("netty-epoll").cpuVsEpoll(), 1e-9);
        assertTrue(echo.verdict().startsWith("echo (v): ringwire spends the least server CPU per message (7.00 µs); "
            + "ringwire 0.64× netty-epoll's CPU/msg (95 % interval "), echo.verdict());
        assertTrue(echo.verdict().contains("ringwire measurably lower); ringwire's rate 1.27× netty-epoll's"),
            echo.verdict());
        assertEquals(List.of(8.0, 6.0), rw.cpuRuns());
        assertEquals(6.0, rw.cpuMin());
        assertEquals(8.0, rw.cpuMax());
        assertTrue(rw.cpuVsEpollLow() <= 7.0 / 11.0 && 7.0 / 11.0 <= rw.cpuVsEpollHigh(), rw.toString());
        assertEquals(4, echo.table().lines().count(), echo.table());
        assertTrue(all.get(1).verdict().contains("heap kept under load (after a full collection at the window's end) "
            + "ringwire 5 MiB vs netty-epoll 15 MiB, pooled direct memory at its peak ringwire 1 MiB vs netty-epoll "
            + "1 MiB, heap peak garbage included ringwire 20 MiB vs netty-epoll 60 MiB (the last grows"),
            all.get(1).verdict());
        assertEquals(5, all.get(1).row("ringwire").liveHeapMiB());
    }

    @Test
    void shouldSayNoMeasurableDifferenceWhenTheRunsOverlap() {
        Summary s = Summary.of(List.of(
            run("echo", "netty-epoll", 1, 100, 10.0, 1, 0), run("echo", "ringwire", 1, 100, 9.0, 1, 0),
            run("echo", "netty-io_uring", 1, 100, 12.0, 1, 0), run("echo", "netty-io_uring", 2, 100, 13.0, 1, 0),
            run("echo", "ringwire", 2, 100, 11.0, 1, 0), run("echo", "netty-epoll", 2, 100, 12.0, 1, 0))).get(0);
        assertTrue(s.verdict().contains("ringwire 0.91× netty-epoll's CPU/msg (95 % interval 0.75-1.10, runs overlap: "
            + "no measurable difference)"), s.verdict());
        assertTrue(s.verdict().contains("ringwire 0.80× netty-io_uring's CPU/msg"), s.verdict());
        assertTrue(s.verdict().contains("runs overlap: no measurable difference)"), s.verdict());
        Summary one = Summary.of(List.of(run("echo", "netty-epoll", 1, 100, 10.0, 1, 0),
            run("echo", "ringwire", 1, 100, 5.0, 1, 0))).get(0);
        assertTrue(one.verdict().contains("one run on a side: cannot tell"), one.verdict());
    }

    @Test
    void shouldBootstrapTheRatioDeterministically() {
        List<Double> a = List.of(5.0, 6.0, 7.0);
        List<Double> b = List.of(10.0, 10.0, 10.0);
        double[] i = Stats.ratioInterval(a, b);
        assertTrue(i[0] >= 0.5 && i[0] <= 0.6 && i[1] >= 0.6 && i[1] <= 0.7, java.util.Arrays.toString(i));
        assertArrayEquals(i, Stats.ratioInterval(a, b), "the same runs give the same interval");
        assertEquals(-1, Stats.measurable(a, b));
        assertEquals(1, Stats.measurable(b, a));
        assertEquals(0, Stats.measurable(List.of(5.0, 11.0), b));
        assertEquals(0, Stats.measurable(List.of(5.0), b), "one run tells nothing");
        assertTrue(Double.isNaN(Stats.ratioInterval(List.of(), b)[0]));
    }

    @Test
    void shouldFailTheVerdictOnAnyMismatch() {
        Summary s = Summary.of(List.of(run("echo", "netty-epoll", 1, 100, 10, 1, 0),
            run("echo", "ringwire", 1, 100, 10, 1, 3))).get(0);
        assertTrue(s.verdict().contains("FAILED: 3 mismatched bytes or errors"), s.verdict());
        assertTrue(!s.row("ringwire").clean());
    }

    @Test
    void shouldRejectUnknownServersAndNonLoopbackTargets() {
        assertThrows(IllegalArgumentException.class, () -> Competitor.of("netty-kqueue"));
        assertThrows(IllegalArgumentException.class, () -> new LoadGenerator(
            new java.net.InetSocketAddress("10.0.0.1", 9), LoadGenerator.Config.closed(1, 128, 1)));
        assertThrows(IllegalArgumentException.class, () -> LoadGenerator.Config.closed(1, 8, 1));
    }

    @Test
    void shouldHoldTheWarmupBetweenItsLimits() throws Exception {
        Warmup notYet = new Warmup(60, 120, ProcessHandle.current().pid());
        assertTrue(!notYet.over(), "never before the minimum");
        Warmup capped = new Warmup(0, 0.05, ProcessHandle.current().pid());
        Thread.sleep(100);
        assertTrue(capped.over(), "always after the maximum");
        assertTrue(capped.seconds() >= 0.05);
    }

    @Test
    void shouldTakeNonHeapMemoryFromNativeMemoryTracking() {
        String nmt = """
            Native Memory Tracking:
            Total: reserved=2459167KB, committed=435115KB
                   malloc: 19000KB #30000
            -                 Java Heap (reserved=1048576KB, committed=387072KB)
                                        (mmap: reserved=1048576KB, committed=387072KB)
            """;
        assertEquals(435115 - 387072, ServerStats.parseNonHeapKiB(nmt));
        assertTrue(Double.isNaN(ServerStats.parseNonHeapKiB("Native memory tracking is not enabled")));
    }

    @Test
    void shouldCountTheResidentSetOutsideTheHeap() {
        long[] g1 = ServerStats.parseHeapRange("""
            garbage-first heap   total reserved 1048576K, committed 1048576K, used 13966K \
            [0x00000000c0000000, 0x0000000100000000)
             region size 1024K, 12 young (12288K), 5 survivors (5120K)
            """);
        assertArrayEquals(new long[] {0xc0000000L, 0x100000000L}, g1);
        long[] parallel = ServerStats.parseHeapRange("""
             PSYoungGen  total 305664K, used 15729K [0x00000000eab00000, 0x0000000100000000, 0x0000000100000000)
             ParOldGen   total 699392K, used 0K [0x00000000c0000000, 0x00000000eab00000, 0x00000000eab00000)
            """);
        assertArrayEquals(new long[] {0xc0000000L, 0x100000000L}, parallel,
            "every space's bounds, lowest to highest");
        assertEquals(null, ServerStats.parseHeapRange("no heap here"));
        List<String> smaps = List.of(
            "c0000000-ffe00000 rw-p 00000000 00:00 0",
            "Size:            1046528 kB",
            "Rss:               78852 kB",
            "ffe00000-100000000 rw-p 00dc9000 fe:00 315633      /usr/lib/jvm/jdk/lib/server/classes.jsa",
            "Rss:                1168 kB",
            "7fd374000000-7fd3755d5000 rw-p 00000000 00:00 0",
            "Rss:               17668 kB",
            "Pss:               17668 kB",
            "7fd3c88e3000-7fd3c996f000 r-xp 002e3000 fe:00 315638      /usr/lib/jvm/jdk/lib/server/libjvm.so",
            "Rss:               13872 kB");
        assertEquals(17668 + 13872, ServerStats.rssOutsideKiB(smaps, g1[0], g1[1]),
            "the mappings inside [heap start, heap end) are left out, every other one's Rss counted once");
    }

    @Test
    void shouldReadTheMachineBusyTimeWithoutIdleIowaitOrSteal() {
        String stat = "cpu  100 2 30 5000 40 6 7 80 0 0\ncpu0 50 1 15 2500 20 3 3 40 0 0\n";
        assertEquals(100 + 2 + 30 + 6 + 7, ProcessStats.parseMachineBusyTicks(stat));
        assertTrue(ProcessStats.machineBusySeconds() > 0);
    }

    /** A closed-loop run in which the server and the generator each used {@code cores} of their cores. */
    static RunResult saturated(String server, double cores) {
        return saturated("echo", server, cores);
    }

    static RunResult saturated(String workload, String server, double cores) {
        double nan = Double.NaN;
        return new RunResult(workload, "v", server, 1, 2.0, 200_000, nan, 10, 20, 30, 40, nan, nan, nan, 5.0,
            cores, 0.01, cores, 0, 100, 80, 40, 30, 8, 1, 0, 0, 64, nan, nan, nan, nan, nan, 0, 0, 0, 0.01);
    }

    @Test
    void whenBothSidesAreSaturatedTheVerdictSaysCpuPerMessageIsTheCoreOverTheRate() {
        Summary both = Summary.of(List.of(saturated("netty-epoll", 0.95), saturated("ringwire", 0.97))).get(0);
        assertTrue(both.verdict().contains("; both sides used ≥ 0.9 of their cores against netty-epoll, ringwire: the "
            + "rate is the pair's"), both.verdict());
        assertTrue(!both.verdict().contains("CPU/msg still compares"), both.verdict());
        assertTrue(both.verdict().contains("a fixed rate (echo --rate) compares"), both.verdict());
        Summary http = Summary.of(List.of(saturated("http", "netty-epoll", 0.95), saturated("http", "ringwire", 0.97)))
            .get(0);
        assertTrue(http.verdict().contains("a fixed rate (http --rate) compares"), "wrk paced: " + http.verdict());
        Summary serverBound = Summary.of(List.of(run("echo", "netty-epoll", 1, 100, 10.0, 50, 0))).get(0);
        assertTrue(!serverBound.verdict().contains("both sides"), "the generator had room: " + serverBound.verdict());
    }

    @Test
    void aServerWhoseRunsDifferManyTimesOverIsSaidToHaveRunInTwoModes() {
        Summary s = Summary.of(List.of(run("single-stream", "ringwire", 1, 1000, 0.8, 20, 0),
            run("single-stream", "netty-epoll", 1, 40, 24.0, 20, 0), run("single-stream", "netty-epoll", 2, 1000, 0.8,
                20, 0), run("single-stream", "ringwire", 2, 1000, 1.0, 20, 0))).get(0);
        assertTrue(s.verdict().contains("; netty-epoll's runs differ 30× in CPU per message (0.80-24.00 µs): it ran "
            + "in two modes"), s.verdict());
        assertTrue(!s.verdict().contains("ringwire's runs differ"), "1.25× is noise: " + s.verdict());
        Summary wide = Summary.of(List.of(run("single-stream", "ringwire", 1, 1000, 0.6, 20, 0),
            run("single-stream", "ringwire", 2, 1000, 1.2, 20, 0))).get(0);
        assertTrue(!wide.verdict().contains("runs differ"),
            "2× between two runs has been noise here: " + wide.verdict());
    }

    @Test
    void shouldFlagRunsWithForeignLoad() {
        RunResult quiet = run("echo", "ringwire", 1, 100, 5, 1, 0);
        assertTrue(!quiet.contaminated());
        Summary s = Summary.of(List.of(quiet, new RunResult("echo", "v", "netty-epoll", 1, 2, 100, Double.NaN, 1, 1,
            1, 1, Double.NaN, Double.NaN, Double.NaN, 6, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 64, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, 0.5))).get(0);
        assertTrue(s.verdict().contains("1 of 2 runs had other processes using > 0.2 cores"), s.verdict());
    }

    @Test
    void shouldParseServerStatsLines() {
        assertEquals(java.util.Map.of("heapPeakMiB", 12.5, "gcCount", 2.0),
            ServerStats.parse("STATS heapPeakMiB=12.500 gcCount=2.000"));
    }

    @Test
    void shouldParseRedisBenchmarkCsv() {
        String out = """
            "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            "SET","98039.22","0.283","0.080","0.279","0.367","0.479","1.279"
            """;
        RedisBenchmark.Csv csv = RedisBenchmark.parse(out, "set");
        assertEquals(98039.22, csv.rps(), 1e-9);
        assertEquals(0.279, csv.p50Ms(), 1e-9);
        assertEquals(0.479, csv.p99Ms(), 1e-9);
        assertEquals(0, csv.errors());
        assertEquals(null, RedisBenchmark.parse(out, "get"));
    }
}
