package io.ringwire.lab.report;

import io.ringwire.lab.experiment.ProgressTest;
import io.ringwire.lab.cli.Lab;
import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Stats;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The summary the lab ends with: every workload named, the verdicts' own judgement, within 120 columns. */
class OverviewTest {
    /** A long output path, as a user's home directory might give. */
    private static final Path REPORT = Path.of("/home/someone/projects/ringwire/lab-results/report.html");

    /** Every run of the default suite with its default servers, with every caveat the summary can raise. */
    private static List<RunResult> defaultSuiteWithEveryCaveat() {
        Lab lab = new Lab();
        new CommandLine(lab).parseArgs();
        List<RunResult> runs = new ArrayList<>();
        for (Experiment e : lab.suite()) {
            for (int round = 1; round <= e.settings().rounds(); round++) {
                for (Competitor c : e.settings().servers()) {
                    String s = c.label();
                    double cpu = (s.startsWith("ringwire") ? 1.0 : 1.2) * (round == 1 ? 1 : 1.1)
                        * (s.equals("netty-io_uring") && round == 2 ? 10 : 1); // netty-io_uring in two modes
                    runs.add(SummaryTest.run(e, s, round, 100_000 + 1000 * round, cpu,
                        s.equals("netty-epoll") ? 0.95 : 0.5, s.equals("netty-epoll") ? 5000 : 100,
                        round == 2 ? 0.5 : 0, s.equals("netty-nio") ? 3 : 0, s.equals("ringwire") ? 2 : 0));
                }
            }
        }
        return runs;
    }

    /** The redis-client workload's clients, whose baseline is Lettuce on epoll: Lettuce on Ringwire 20 % cheaper. */
    private static List<RunResult> clientRuns() {
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            for (Competitor c : Competitor.lettuceClients()) {
                double cpu = (c == Competitor.LETTUCE_RINGWIRE ? 8.0 : 10.0) + round * 0.1;
                runs.add(SummaryTest.run("redis-client", "SET 16 B, 4 in flight", c.label(), round, 50_000, cpu,
                    0.6, 0, 0, 0, 0));
            }
        }
        return runs;
    }

    @Test
    void aSummaryOfClientsNamesLettuceOnEpollAsTheBaselineNotNettysServers() {
        LabReport report = LabReport.of("./ringwire lab redis-client", ServerJvm.DEFAULT,
            LoadGenerator.Engine.IO_URING, List.of(), clientRuns(), null);
        String text = report.summaryText(REPORT);
        ProgressTest.assertFits(text);
        assertTrue(text.contains("== summary: lettuce-ringwire as a multiple of lettuce-epoll and lettuce-io_uring, "
            + "2 runs each =="), text);
        String header = text.lines().filter(l -> l.contains("× lettuce-epoll")).findFirst().orElseThrow(
            () -> new AssertionError("a column × lettuce-epoll: " + text));
        assertTrue(header.contains("× lettuce-io_uring"), header);
        assertFalse(text.contains("netty-"), () -> "no server is named for clients: " + text);
        String cpu = text.lines().filter(l -> l.startsWith("  CPU per command")).findFirst().orElseThrow(
            () -> new AssertionError("lettuce-ringwire's own rows: " + text));
        assertTrue(cpu.contains("0.80") && cpu.contains("lower"), cpu);
        String html = HtmlReport.render(report);
        assertTrue(html.contains("<h2>Summary: Lettuce on Ringwire as a multiple of Lettuce on Netty epoll and on "
            + "Netty io_uring</h2>"), html);
        assertTrue(html.contains("<th>CPU per message × lettuce-epoll</th>"), html);
        assertTrue(html.contains("ratios are to lettuce-epoll"), html);
    }

    @Test
    void theSummaryNamesEveryWorkloadRunAndFitsInAHundredAndTwentyColumns() {
        List<RunResult> runs = defaultSuiteWithEveryCaveat();
        LabReport report = LabReport.of("./ringwire lab", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of("a note long enough to need a second line: " + "word ".repeat(30)), runs, null);
        String text = report.summaryText(REPORT);
        assertEquals(ProgressTest.COLUMNS, Overview.COLUMNS);
        ProgressTest.assertFits(text);
        for (Summary s : report.summaries()) {
            assertTrue(text.contains(s.workload() + " · " + s.variant()), () -> s.variant() + " named: " + text);
        }
        assertEquals(4, report.summaries().size());
        assertTrue(text.contains("report: " + REPORT), text);
        assertTrue(text.contains("note: a note long enough"), text);
        // the caveats that matter, each in its words
        assertTrue(text.contains("runs had other processes using > 0.2 cores"), text);
        assertTrue(text.contains("netty-io_uring ran in two modes"), text);
        assertTrue(text.contains("the generator fell behind its schedule against netty-epoll"), text);
        assertTrue(text.contains("FAILED: mismatched bytes or errors: netty-nio 6"), text);
        assertTrue(text.contains("ringwire starved 4 connections"), text);
        assertTrue(text.contains("ringwire-minwait: median latency 95 µs against ringwire's 95 µs"), text);
        assertTrue(text.contains("  CPU, ringwire-minwait"), "the variant beside ringwire at the fixed load: " + text);
        // each published figure by its source's name and link, then this machine's, wrapped where it is long
        String flat = text.replaceAll("\\s+", " ");
        assertTrue(flat.contains("Netty's announcement (https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html): "
            + "netty io_uring 0.0.1 3.31× netty-epoll/NIO's req/s here, rate: netty-io_uring 1.00×, ringwire 1.00× "
            + "netty-epoll's"), text);
        assertTrue(flat.contains("The RSocket evaluation (https://jauntsdn.com/post/rpc-iouring/): io_uring 106× "
            + "epoll's heap here, heap peak: netty-io_uring 1.00×, ringwire 1.00× netty-epoll's"), text);
        assertFalse(java.util.regex.Pattern.compile("(?i)\\bseeds?\\b|\\bseed's\\b").matcher(text).find(),
            () -> "the published texts by name and link, never by the project's own label: " + text);
        // and the tables and the run lines before it, within the same width
        ProgressTest.assertFits(report.text());
        assertFalse(report.text().contains("verdict:"), "the long sentences are for --wide: " + report.text());
        assertTrue(report.text(LabReport.Detail.WIDE).contains("verdict:"));
        assertEquals("", report.text(LabReport.Detail.QUIET));
    }

    /** Ringwire's and netty-epoll's CPU per message over their runs; the verdict's and the summary's words. */
    private static void judged(List<Double> ringwire, List<Double> epoll, Stats.Difference expected,
                               String verdictWords) {
        Experiment e = Workloads.rpcBackend(new Experiment.Settings(List.of(Competitor.RINGWIRE,
            Competitor.NETTY_EPOLL), 2, 2, 6, 3, 1), 32, 1000, 32, 128);
        List<RunResult> runs = new ArrayList<>();
        for (int i = 0; i < ringwire.size(); i++) {
            runs.add(SummaryTest.run(e, "ringwire", i + 1, 1000, ringwire.get(i), 0.5, 0, 0, 0, 0));
        }
        for (int i = 0; i < epoll.size(); i++) {
            runs.add(SummaryTest.run(e, "netty-epoll", i + 1, 1000, epoll.get(i), 0.5, 0, 0, 0, 0));
        }
        Summary s = Summary.of(runs).get(0);
        Overview.Cell cell = Overview.of(List.of(s)).entries().get(0).lines().get(0).cells().get(0);
        assertEquals(expected, cell.cpu().difference());
        assertTrue(s.verdict().contains(verdictWords), s.verdict());
        String text = Overview.of(List.of(s)).text(null);
        String line = text.lines().filter(l -> l.startsWith("  CPU per message")).findFirst().orElseThrow();
        assertTrue(line.contains(String.format(java.util.Locale.ROOT, "%-17s %s", String.format(java.util.Locale.ROOT,
            "%.2f ± %.2f", cell.cpu().ratio(), cell.cpu().halfInterval()), expected.words())), line);
        assertTrue(line.endsWith("not run"), "netty-io_uring did not run: " + line);
    }

    @Test
    void theSummarySaysMeasurableOrNotByTheVerdictsOwnTest() {
        judged(List.of(6.0, 8.0), List.of(10.0, 12.0), Stats.Difference.LOWER, "ringwire measurably lower");
        judged(List.of(13.0, 14.0), List.of(10.0, 12.0), Stats.Difference.HIGHER, "ringwire measurably higher");
        judged(List.of(9.0, 11.0), List.of(10.0, 12.0), Stats.Difference.NONE,
            "runs overlap: no measurable difference");
        judged(List.of(5.0), List.of(10.0, 12.0), Stats.Difference.CANNOT_TELL, "one run on a side: cannot tell");
    }

    /** @return {@code r} offered {@code offered} messages a second, whatever it answered */
    private static RunResult offered(RunResult r, double offered) {
        return new RunResult(r.workload(), r.variant(), r.server(), r.round(), r.warmupSeconds(), r.rate(), offered,
            r.p50Us(), r.p99Us(), r.p999Us(), r.maxUs(), r.streamsPerSec(), r.streamP99Ms(), r.sendLagP99Us(),
            r.serverCpuUsPerMsg(), r.serverUtil(), r.jitUtil(), r.loadgenUtil(), r.labJitUtil(), r.peakRssMiB(),
            r.nonHeapMiB(), r.rssOutsideHeapMiB(), r.heapPeakMiB(), r.liveHeapMiB(), r.directPeakMiB(), r.gcCount(),
            r.gcMillis(), r.allocBytesPerMsg(), r.voluntaryCtxSwitchesPerKMsg(), r.involuntaryCtxSwitchesPerKMsg(),
            r.minorFaultsPerKMsg(), r.majorFaultsPerKMsg(), r.cpuMigrationsPerKMsg(), r.sqesPerEnter(),
            r.iovecsPerWrite(), r.bytesPerRecv(), r.bufferRingEmpty(), r.loopIterations(), r.mismatches(), r.errors(),
            r.starved(), r.foreignCores(), r.profiled());
    }

    @Test
    void atAFixedLoadAServerThatStrayedFromTheOfferedRateIsJudgedAgainstNoOne() {
        Experiment e = Workloads.echo(new Experiment.Settings(List.of(Competitor.RINGWIRE, Competitor.NETTY_EPOLL,
            Competitor.NETTY_IO_URING), 2, 2, 6, 3, 1), 500, 128, 1, 20_000);
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            runs.add(offered(SummaryTest.run(e, "ringwire", round, 20_050, 27.0 + round, 0.5, 100, 0, 0, 0), 20_000));
            // fell seconds behind, then answered its backlog faster than offered: cheaper per message, another load
            runs.add(offered(SummaryTest.run(e, "netty-epoll", round, 25_000 + 5_000 * round, 17.0 + round, 0.5,
                90_000, 0, 0, 0), 20_000));
            runs.add(offered(SummaryTest.run(e, "netty-io_uring", round, 19_950, 31.0 + round, 0.5, 100, 0, 0, 0),
                20_000));
        }
        Summary s = Summary.of(runs).get(0);
        assertEquals(List.of("netty-epoll"), s.offLoad());
        Overview.Line line = Overview.of(List.of(s)).entries().get(0).lines().get(0);
        assertTrue(line.cells().get(0).offLoad(), "against netty-epoll");
        assertFalse(line.cells().get(1).offLoad(), "against netty-io_uring, both at the offered rate");
        String text = Overview.of(List.of(s)).text(null);
        String cpu = text.lines().filter(l -> l.startsWith("  CPU per message")).findFirst().orElseThrow();
        assertTrue(cpu.contains("not the same load"), cpu);
        assertFalse(cpu.contains("higher"), "every run of ringwire above every one of netty-epoll's, yet no verdict: "
            + cpu);
        assertTrue(cpu.endsWith("lower"), "netty-io_uring carried the same load: judged as ever: " + cpu);
        String flat = text.replaceAll("\\s+", " ");
        assertTrue(flat.contains("netty-epoll answered 1.63 × the offered rate (it fell behind its schedule and "
            + "caught up): its CPU per message is another load's, so no verdict against it"), text);
        ProgressTest.assertFits(text);
        assertTrue(s.verdict().contains("not the same load: netty-epoll strayed from the offered rate, no verdict"),
            s.verdict());
        assertTrue(s.verdict().contains("ringwire spends the least"), "the cheapest of those that carried the "
            + "offered load: " + s.verdict());
    }

    @Test
    void aFrameworkOnRingwireIsSetAgainstTheSameFrameworkOnNettysTransports() {
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            runs.add(SummaryTest.run("http", "webflux-ringwire", round, 30_000, 20.0 + round, 0, 0));
            runs.add(SummaryTest.run("http", "webflux-epoll", round, 30_000, 25.0 + round, 0, 0));
        }
        Summary s = Summary.of(runs).get(0);
        Overview.Line line = Overview.of(List.of(s)).entries().get(0).lines().get(0);
        assertEquals("webflux-ringwire", line.server());
        assertEquals(List.of("webflux-epoll", "webflux-io_uring"), line.cells().stream().map(Overview.Cell::against)
            .toList());
        assertEquals(Stats.Difference.LOWER, line.cells().get(0).cpu().difference());
        assertNull(line.cells().get(1).cpu(), "webflux-io_uring did not run");
        String text = Overview.of(List.of(s)).text(null);
        assertTrue(text.contains("webflux-ringwire × webflux-epoll, × webflux-io_uring:"), text);
        assertFalse(text.contains("ringwire did not run"), text);
        ProgressTest.assertFits(text);
    }

    @Test
    void aPublishedFigureIsSetBesideTheSameRatioWhereItsTextGaveOne() {
        Experiment.Settings three = new Experiment.Settings(Lab.QUICK_SERVERS, 1, 2, 6, 3, 1);
        Experiment fixed = Workloads.echo(three, 500, 128, 1, 20_000);
        Experiment backend = Workloads.rpcBackend(three, 32, 1000, 32, 128);
        List<RunResult> runs = new ArrayList<>();
        for (Experiment e : List.of(fixed, backend)) {
            for (Competitor c : Lab.QUICK_SERVERS) {
                runs.add(SummaryTest.run(e, c.label(), 1, 20_000, 1.0, 0.5, 100, 0, 0, 0));
            }
        }
        List<Summary> summaries = Summary.of(runs);
        assertNull(PublishedFigure.against(summaries.get(0)),
            "Netty's announcement measured echo at saturation, not a fixed load");
        String tyma = "Tyma's test "
            + "(http://mailinator.blogspot.com/2008/02/kill-myth-please-nio-is-not-faster-than.html): blocking "
            + "threads 1.26× best NIO's req/s";
        assertEquals(tyma + "; not measured here: blocking-platform or netty-nio did not run",
            PublishedFigure.against(summaries.get(1)).toString());
        String text = Overview.of(summaries).text(null);
        assertTrue(text.replaceAll("\\s+", " ").contains(" " + tyma + " not measured here: blocking-platform or "
            + "netty-nio did not run"), text);
        ProgressTest.assertFits(text);
    }
}
