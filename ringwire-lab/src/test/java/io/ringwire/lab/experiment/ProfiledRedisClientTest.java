package io.ringwire.lab.experiment;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.report.HtmlReport;
import io.ringwire.lab.report.LabReport;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.RedisServerProcess;
import io.ringwire.lab.server.ServerJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code lab redis-client --profile} on real processes: async-profiler loads into each client JVM (Lettuce on Ringwire
 * and on Netty epoll) from the jar on the lab's class path, samples its window, and leaves a flame graph and the
 * collapsed stacks per client in the report's directory; the terminal shows the layer table of the two clients, the
 * report links every flame graph, and the runs are marked profiled and judged by no verdict. Nothing here judges speed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProfiledRedisClientTest {
    @Test
    void aProfiledRedisClientRunLeavesEachClientsFlameGraphAndTheLayerTable(@TempDir Path dir) throws Exception {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").startsWith("Linux")
            && List.of("amd64", "x86_64", "aarch64", "arm64").contains(arch), "async-profiler ships no library here");
        List<String> notes = new ArrayList<>();
        assumeTrue(RedisServerProcess.locate(notes::add) != null, () -> "redis-server is not installed: " + notes);
        List<Competitor> clients = List.of(Competitor.LETTUCE_RINGWIRE, Competitor.LETTUCE_EPOLL);
        List<Experiment> experiments = Workloads.redisClient(new Experiment.Settings(clients, 1, 0.3, 1.0, 0.7, 1),
            List.of("set"), List.of(16), List.of(4), 0, 0, notes::add);
        assertEquals(1, experiments.size());
        Experiment e = experiments.get(0).profiledBy(Profiling.into(dir));
        List<RunResult> runs = e.run(Progress.silent());
        assertEquals(2, runs.size());
        for (RunResult r : runs) {
            assertEquals(0, r.mismatches() + r.errors(), r::toString);
            assertTrue(r.profiled(), r::toString);
        }

        List<Profile> profiles = e.profiles();
        assertEquals(clients.stream().map(Competitor::label).toList(), profiles.stream().map(Profile::server).toList());
        for (Profile p : profiles) {
            assertTrue(p.engine().equals("cpu-clock") || p.engine().startsWith("itimer"), p.engine());
            Path html = dir.resolve(p.flameGraph());
            Path collapsed = dir.resolve(p.collapsed());
            assertTrue(html.startsWith(dir.resolve(Profiling.DIR)), html::toString);
            assertTrue(html.getFileName().toString().contains(p.server()), html::toString);
            assertTrue(Files.readString(html).contains("<canvas"), "async-profiler's interactive flame graph: " + html);
            // the client ran its load through the window: the profiler sampled it
            assertTrue(p.samples() > 0 && Files.readAllLines(collapsed).stream().anyMatch(l -> !l.isBlank()),
                () -> p + "\n" + collapsed);
            assertTrue(p.cpuUsPerMsg() > 0, p::toString);
        }

        LabReport report = LabReport.of("./ringwire lab redis-client --profile", ServerJvm.DEFAULT,
            LoadGenerator.Engine.best(), notes, runs, null, List.of(), profiles);
        String text = report.text();
        assertTrue(text.contains("== profile · redis-client · SET 16 B, 4 in flight: client CPU µs/command by layer "
            + "(PROFILED) =="), text);
        String header = text.lines().filter(l -> l.startsWith("layer ")).findFirst().orElseThrow(
            () -> new AssertionError("the layer table's header: " + text));
        assertTrue(header.contains("lettuce-ringwire") && header.contains("lettuce-epoll"), header);
        assertTrue(report.machine().get("profiler").startsWith("async-profiler 4.1 in every measured client JVM"),
            report.machine().toString());

        String html = HtmlReport.render(report);
        for (Profile p : profiles) {
            assertTrue(html.contains("<a href=\"" + p.flameGraph() + "\">" + p.server() + ", round 1</a>"), html);
        }
        assertTrue(html.contains("layer, µs per command"), html);
        Summary s = report.summaries().get(0);
        assertTrue(s.profiled());
        assertTrue(s.verdict().contains("PROFILED (2 of 2 runs): async-profiler sampled every client"), s.verdict());
        assertFalse(s.verdict().contains("measurably"), s.verdict());
    }
}
