package io.ringwire.lab.experiment;

import io.ringwire.lab.report.ProfileTableTest;
import io.ringwire.lab.report.SummaryTest;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.report.Compare;
import io.ringwire.lab.report.HtmlReport;
import io.ringwire.lab.report.LabReport;
import io.ringwire.lab.report.Overview;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A profiled run ({@code --profile}) is marked as such in the terminal, the report and results.json, and its figures
 * enter no verdict: not the workload's sentence, not the summary's words, not {@code lab compare}'s.
 */
class ProfiledRunsTest {
    private static List<RunResult> runs(boolean profiled) {
        Experiment e = Workloads.rpcBackend(new Experiment.Settings(List.of(Competitor.RINGWIRE,
            Competitor.NETTY_EPOLL), 2, 2, 6, 3, 1), 32, 1000, 32, 128);
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            // every ringwire run dearer than every epoll run: plain, the verdict would be "measurably higher"
            RunResult rw = SummaryTest.run(e, "ringwire", round, 1000, 13.0 + round, 0.5, 0, 0, 0, 0);
            RunResult ep = SummaryTest.run(e, "netty-epoll", round, 1000, 10.0 + round, 0.5, 0, 0, 0, 0);
            runs.add(profiled ? rw.asProfiled() : rw);
            runs.add(profiled ? ep.asProfiled() : ep);
        }
        return runs;
    }

    @Test
    void aProfiledRunsVerdictAndSummarySayItWasProfiledAndJudgeNothing() {
        Summary plain = Summary.of(runs(false)).get(0);
        assertTrue(plain.verdict().contains("ringwire measurably higher"), plain.verdict());
        Summary s = Summary.of(runs(true)).get(0);
        assertTrue(s.profiled());
        assertTrue(s.verdict().contains("PROFILED (4 of 4 runs)"), s.verdict());
        assertFalse(s.verdict().contains("measurably"), s.verdict());
        assertFalse(s.verdict().contains("spends the least"), s.verdict());
        String text = Overview.of(List.of(s)).text(null);
        String cpu = text.lines().filter(l -> l.startsWith("  CPU per message")).findFirst().orElseThrow();
        assertTrue(cpu.contains("profiled: no verdict"), cpu);
        assertFalse(cpu.contains("higher"), cpu);
        assertTrue(text.contains("! PROFILED: async-profiler sampled every server"), text);
        ProgressTest.assertFits(text);
    }

    @Test
    void aRunLineSaysItWasProfiled() {
        RunResult r = runs(true).get(0);
        assertTrue(Experiment.shortLine(r).endsWith(" PROFILED"), Experiment.shortLine(r));
        assertTrue(Experiment.oneLine(r).contains("PROFILED"), Experiment.oneLine(r));
        assertFalse(Experiment.shortLine(runs(false).get(0)).contains("PROFILED"));
    }

    private static LabReport report(boolean profiled) {
        List<Profile> profiles = !profiled ? List.of() : List.of(
            ProfileTableTest.profile("ringwire", 1, 0.3, "java/lang/Thread.run;io/ringwire/transport/X.run 10"),
            ProfileTableTest.profile("netty-epoll", 1, 0.2, "java/lang/Thread.run;io/netty/channel/epoll/X.run 10"));
        return LabReport.of("./ringwire lab rpc-backend --profile", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of(), runs(profiled), null, List.of(), profiles);
    }

    @Test
    void theReportLinksEveryFlameGraphAndMarksTheRunsProfiled(@TempDir Path dir) throws IOException {
        LabReport report = report(true);
        String html = HtmlReport.render(report);
        assertTrue(html.contains("<a href=\"profiles/x.html\">ringwire, round 1</a>"), html);
        assertTrue(html.contains("<a href=\"profiles/x.html\">netty-epoll, round 1</a>"), html);
        assertTrue(html.contains("Profiles (PROFILED runs: no verdict)"), html);
        assertTrue(html.contains("profiled: no verdict"), "the summary's cells: " + html);
        assertTrue(report.machine().get("profiler").startsWith("async-profiler 4.1 in every measured server"),
            report.machine().toString());
        assertTrue(report.text().contains("== profile · rpc-backend"), report.text());
        report.write(dir);
        String json = Files.readString(dir.resolve("results.json"));
        assertTrue(json.contains("\"profiled\" : true"), json);
        assertTrue(json.contains("\"KERNEL_TCP_IP\" : 0"), "each profile's samples per layer: " + json);
        assertFalse(json.contains("\"self\""), "the frames stay in the .collapsed files: " + json);
        assertFalse(HtmlReport.render(report(false)).contains("PROFILED"));
    }

    @Test
    void labCompareSetsAProfiledRunAgainstNothing(@TempDir Path dir) throws IOException {
        report(false).write(dir.resolve("plain"));
        report(true).write(dir.resolve("profiled"));
        String table = Compare.table(Compare.read(dir.resolve("plain/results.json")),
            Compare.read(dir.resolve("profiled/results.json")));
        assertTrue(table.contains("(profiled) / ringwire: in the new results, not compared"), table);
        assertFalse(table.contains("measurably"), table);
        String both = Compare.table(Compare.read(dir.resolve("profiled/results.json")),
            Compare.read(dir.resolve("profiled/results.json")));
        assertFalse(both.contains("measurably") || both.contains("no measurable change"), both);
    }

    @Test
    void theProfilersLibraryIsTheOneForThisMachine() {
        assertEquals("linux-x64/libasyncProfiler.so", Profiling.resource("Linux", "amd64"));
        assertEquals("linux-arm64/libasyncProfiler.so", Profiling.resource("Linux", "aarch64"));
        assertThrows(IllegalStateException.class, () -> Profiling.resource("Mac OS X", "aarch64"));
        assertThrows(IllegalStateException.class, () -> Profiling.resource("Linux", "riscv64"));
        assertEquals("rpc-backend-32-conns-1000-streams-32-msgs-128-b-ringwire",
            Profiling.slug("rpc-backend-32 conns × 1000 streams × 32 msgs × 128 B-ringwire"));
    }
}
