package io.ringwire.lab.experiment;

import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tiny run of the redis-client workload against a real redis-server: each Lettuce client in its own JVM on the
 * transport its label names (the client checks the channel Lettuce opened, and fails otherwise), every reply checked,
 * the client's CPU and redis-server's measured. Nothing here judges speed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisClientEndToEndTest {
    @BeforeAll
    static void redisServerInstalled() {
        List<String> notes = new ArrayList<>();
        assumeTrue(RedisServerProcess.locate(notes::add) != null, () -> "redis-server is not installed (Debian's "
            + "package redis-server; .ci/run installs it): the redis-client workload cannot run: " + notes);
    }

    private static Experiment.Settings settings(List<Competitor> clients) {
        return new Experiment.Settings(clients, 1, 0.3, 1.0, 0.7, 1);
    }

    private static List<RunResult> clean(Experiment e, int expectedRuns) throws Exception {
        List<RunResult> runs = e.run(Progress.silent());
        assertEquals(expectedRuns, runs.size());
        for (RunResult r : runs) {
            assertEquals("redis-client", r.workload(), r::toString);
            assertEquals(0, r.mismatches(), () -> "every reply as expected, every key read back: " + r);
            assertEquals(0, r.errors(), r::toString);
            assertTrue(r.rate() > 0, r::toString);
            assertTrue(r.serverCpuUsPerMsg() > 0, () -> "the client's CPU per command: " + r);
            assertTrue(r.loadgenUtil() >= 0, () -> "redis-server's CPU over the window: " + r);
            assertFalse(Double.isNaN(r.p50Us()) || Double.isNaN(r.p99Us()), () -> "latency percentiles: " + r);
            assertFalse(Double.isNaN(r.heapPeakMiB()), () -> "the client reported its heap: " + r);
            assertTrue(r.liveHeapMiB() > 0, () -> "the client reported its heap after a full collection: " + r);
            assertEquals(r.server().equals(Competitor.LETTUCE_RINGWIRE.label()), !Double.isNaN(r.sqesPerEnter()),
                () -> "Lettuce on Ringwire, and only it, reports SQEs per enter: " + r);
        }
        return runs;
    }

    @Test
    void everyClientSetsOnItsOwnTransport() throws Exception {
        List<String> notes = new ArrayList<>();
        List<Experiment> e = Workloads.redisClient(settings(Competitor.lettuceClients()), List.of("set"),
            List.of(16), List.of(4), 0, 0, notes::add);
        assertEquals(List.of("SET 16 B, 4 in flight"), e.stream().map(Experiment::variant).toList());
        List<RunResult> runs = clean(e.get(0), 3);
        assertEquals(Competitor.lettuceClients().stream().map(Competitor::label).toList(),
            runs.stream().map(RunResult::server).toList());
        runs.forEach(r -> assertTrue(Double.isNaN(r.offeredRate()), () -> "a closed loop: " + r));
    }

    @Test
    void getsPipelinedBatchesAndAFixedRateRunOnRingwire() throws Exception {
        List<String> notes = new ArrayList<>();
        List<Experiment> e = Workloads.redisClient(settings(List.of(Competitor.LETTUCE_RINGWIRE)), List.of("get"),
            List.of(1024), List.of(4), 10, 500, notes::add);
        assertEquals(List.of("GET 1 KiB, 4 in flight", "SET+GET 1 KiB, pipelined batches of 10",
            "GET 1 KiB at 500 commands/s"), e.stream().map(Experiment::variant).toList());
        clean(e.get(0), 1);
        clean(e.get(1), 1);
        for (RunResult r : clean(e.get(2), 1)) {
            assertEquals(500, r.offeredRate(), () -> "the rate asked for, recorded as offered: " + r);
            assertFalse(Double.isNaN(r.sendLagP99Us()), () -> "how late the client sent against its schedule: " + r);
        }
    }

    @Test
    void clientsAndServersRunInTheirOwnWorkloadsOnly() {
        IllegalArgumentException client = assertThrows(IllegalArgumentException.class,
            () -> Workloads.echo(settings(List.of(Competitor.LETTUCE_EPOLL)), 1, 128, 1, 0));
        assertTrue(client.getMessage().contains("redis-client workload only"), client.getMessage());
        IllegalArgumentException server = assertThrows(IllegalArgumentException.class,
            () -> Workloads.redisClient(settings(List.of(Competitor.RINGWIRE)), List.of("get"), List.of(16),
                List.of(1), 0, 0, n -> { }));
        assertTrue(server.getMessage().contains("runs clients"), server.getMessage());
    }
}
