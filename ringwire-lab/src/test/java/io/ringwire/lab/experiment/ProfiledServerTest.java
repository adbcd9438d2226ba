package io.ringwire.lab.experiment;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --profile} on a real server process: async-profiler loads into the server JVM from the jar on the lab's class
 * path, samples its window, and leaves a flame graph and the collapsed stacks in the report's directory. Nothing here
 * judges speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProfiledServerTest {
    @Test
    void aProfiledRunLeavesTheServersFlameGraphAndStacks(@TempDir Path dir) throws Exception {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").startsWith("Linux")
            && List.of("amd64", "x86_64", "aarch64", "arm64").contains(arch), "async-profiler ships no library here");
        Profiling profiling = Profiling.into(dir);
        Experiment e = Workloads.rpcBackend(new Experiment.Settings(List.of(Competitor.RINGWIRE), 1, 0.3, 1.0, 0.7, 1),
            2, 10, 4, 128).profiledBy(profiling);
        List<RunResult> runs = e.run(Progress.silent());
        assertEquals(1, runs.size());
        RunResult r = runs.get(0);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        assertTrue(r.profiled(), r::toString);
        assertEquals(1, e.profiles().size());
        Profile p = e.profiles().get(0);
        assertTrue(p.engine().equals("cpu-clock") || p.engine().startsWith("itimer"), p.engine());
        Path html = dir.resolve(p.flameGraph());
        Path collapsed = dir.resolve(p.collapsed());
        assertTrue(html.startsWith(dir.resolve(Profiling.DIR)), html::toString);
        assertTrue(Files.readString(html).contains("<canvas"), "async-profiler's interactive flame graph: " + html);
        long lines = Files.readAllLines(collapsed).stream().filter(l -> !l.isBlank()).count();
        // the server ran a closed loop through the window: the profiler sampled it
        assertTrue(p.samples() > 0 && lines > 0, () -> p + "\n" + collapsed);
        assertEquals(p.samples(), p.layers().values().stream().mapToLong(Long::longValue).sum());
        assertTrue(p.cpuUsPerMsg() > 0, p::toString);
    }
}
