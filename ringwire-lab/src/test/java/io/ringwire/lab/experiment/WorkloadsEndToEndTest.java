package io.ringwire.lab.experiment;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.cost.CostModel;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.LabServer;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tiny run of every workload against real server processes: no errors, no mismatches, and the figures each workload
 * exists for are there. Nothing here judges speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkloadsEndToEndTest {
    private static Experiment.Settings settings(Competitor... servers) {
        return new Experiment.Settings(List.of(servers), 1, 0.3, 1.0, 0.7, 1);
    }

    private static List<RunResult> clean(Experiment e, int expectedRuns) throws Exception {
        List<RunResult> runs = e.run(Progress.silent());
        assertEquals(expectedRuns, runs.size());
        for (RunResult r : runs) {
            assertEquals(0, r.mismatches(), r::toString);
            assertEquals(0, r.errors(), r::toString);
            assertTrue(r.rate() > 0, r::toString);
            assertTrue(r.serverCpuUsPerMsg() > 0, r::toString);
            assertTrue(r.peakRssMiB() > 0, r::toString);
            assertFalse(Double.isNaN(r.heapPeakMiB()), () -> "the server reported its heap: " + r);
            assertTrue(r.liveHeapMiB() > 0,
                () -> "the server reported the heap it keeps after a full collection: " + r);
            assertFalse(Double.isNaN(r.gcCount()), r::toString);
            assertTrue(r.allocBytesPerMsg() >= 0, () -> "the server counted its heap allocation: " + r);
            assertTrue(r.nonHeapMiB() > 0, () -> "the server reported its memory outside the heap: " + r);
            assertTrue(r.rssOutsideHeapMiB() > 0,
                () -> "the server reported its resident set outside the heap: " + r);
            assertEquals(r.server().contains("ringwire"), !Double.isNaN(r.sqesPerEnter()),
                () -> "Ringwire (under Netty or Vert.x), and only Ringwire, reports SQEs per enter: " + r);
        }
        return runs;
    }

    @Test
    void echoClosedLoop() throws Exception {
        clean(Workloads.echo(settings(Competitor.RINGWIRE, Competitor.BLOCKING_VIRTUAL), 8, 200, 2, 0), 2);
    }

    @Test
    void aGeneratorsFirstRunInTheJvmIsPrecededByOneUnmeasuredRehearsal() throws Exception {
        String kind = "test-" + System.nanoTime(); // not yet run in this JVM, whatever ran before
        Experiment first = Workloads.echo(settings(Competitor.RINGWIRE), 8, 200, 2, 0).rehearsingGenerator(kind);
        clean(first, 1);
        assertEquals(1, first.rehearsals().size(), "the generator's first experiment in this JVM");
        RunResult r = first.rehearsals().get(0);
        assertEquals(0, r.round(), r::toString);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        Experiment second = Workloads.echo(settings(Competitor.RINGWIRE), 8, 200, 2, 0).rehearsingGenerator(kind);
        clean(second, 1);
        assertEquals(0, second.rehearsals().size(), "the generator has run in this JVM already");
    }

    @Test
    void rpcBackendCompletesStreams() throws Exception {
        for (RunResult r : clean(Workloads.rpcBackend(settings(Competitor.RINGWIRE, Competitor.BLOCKING_PLATFORM),
            4, 50, 8, 128), 2)) {
            assertTrue(r.streamsPerSec() > 0, r::toString);
            assertTrue(r.streamP99Ms() > 0, r::toString);
        }
    }

    @Test
    void rpcFrontendHoldsTheOfferedRate() throws Exception {
        // with the minimum-wait variant: its server starts with the setting and serves the fixed load; primed for the
        // least time, since nothing here depends on the servers' compilers having gone quiet
        for (RunResult r : clean(Workloads.rpcFrontend(settings(Competitor.RINGWIRE, Competitor.RINGWIRE_MIN_WAIT,
            Competitor.NETTY_EPOLL), 50, 5, 2000, 2, 128).primingAtMost(Experiment.PRIME_MIN_SECONDS), 3)) {
            assertEquals(2000, r.offeredRate(), 200, r::toString);
            assertFalse(Double.isNaN(r.sendLagP99Us()), r::toString);
            // a fixed-rate load is primed first (closed loop until the JIT is quiet), counted in the warm-up
            assertTrue(r.warmupSeconds() >= Experiment.PRIME_MIN_SECONDS + 0.3, r::toString);
        }
    }

    @Test
    void connsMeasuresMemoryPerConnection() throws Exception {
        // primed for the least time: the memory per connection is the difference of two snapshots after it either way
        Experiment e = Workloads.conns(settings(Competitor.RINGWIRE, Competitor.NETTY_EPOLL), 300, 64, 1.0)
            .primingAtMost(Experiment.PRIME_MIN_SECONDS);
        List<RunResult> runs = e.run(Progress.silent());
        assertEquals(2, runs.size());
        for (RunResult r : runs) {
            assertEquals(0, r.mismatches() + r.errors(), r::toString);
            assertEquals(300, r.offeredRate(), 30, r::toString);
        }
        List<ConnectionCost> costs = e.connectionCosts();
        assertEquals(2, costs.size());
        for (ConnectionCost c : costs) {
            assertEquals(300, c.conns());
            assertTrue(c.connectsPerSec() > 0, c::toString);
            // exactly one channel object per open connection, counted in the transport's own classes
            String channel = c.server().equals("ringwire") ? "io.ringwire.transport.RingwireSocketChannel"
                : "io.netty.channel.epoll.EpollSocketChannel";
            ConnectionCost.ClassCost own = c.top().stream().filter(t -> t.name().equals(channel)).findFirst()
                .orElseThrow(() -> new AssertionError(channel + " among the classes that grew: " + c));
            assertEquals(1.0, own.instancesPerConn(), 1e-9, c::toString);
            assertTrue(c.transportPerConn() >= own.bytesPerConn(), c::toString);
            assertTrue(c.nettyPerConn() > 0, () -> "a Netty pipeline per connection: " + c);
        }
    }

    @Test
    void singleStreamReportsServerMemory() throws Exception {
        for (RunResult r : clean(Workloads.singleStream(settings(Competitor.RINGWIRE), 1024, 4096), 1)) {
            assertTrue(r.heapPeakMiB() > 0, r::toString);
            assertTrue(r.liveHeapMiB() < r.heapPeakMiB(),
                () -> "a full collection leaves less than the peak, which includes garbage: " + r);
            assertTrue(r.iovecsPerWrite() >= 1, r::toString);
        }
    }

    @Test
    void redisServersAnswerSetAndGet() throws Exception {
        for (Competitor c : List.of(Competitor.RINGWIRE, Competitor.BLOCKING_VIRTUAL)) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.REDIS, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                OutputStream out = s.getOutputStream();
                InputStream in = new BufferedInputStream(s.getInputStream());
                // pipelined: three commands in one write
                out.write(("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
                    + "*2\r\n$3\r\nGET\r\n$4\r\nnone\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String expected = "+OK\r\n$5\r\nhello\r\n$-1\r\n";
                byte[] got = in.readNBytes(expected.length());
                assertEquals(expected, new String(got, StandardCharsets.US_ASCII), c.label());
            }
        }
    }

    @Test
    void redisBenchmarkDrivesEveryKindOfServer() throws Exception {
        List<String> notes = new ArrayList<>();
        List<Experiment> e = Workloads.redis(settings(Competitor.RINGWIRE, Competitor.BLOCKING_VIRTUAL), "set",
            List.of(4), 1024, notes::add);
        assumeTrue(!e.isEmpty(), () -> "redis-benchmark unavailable: " + notes);
        for (RunResult r : clean(e.get(0), 2)) {
            assertTrue(r.loadgenUtil() >= 0, () -> "redis-benchmark's own CPU, read once it has ended: " + r);
        }
    }

    @Test
    void httpServersAnswerPipelinedRequestsAlike() throws Exception {
        String request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: lab\r\n\r\n";
        byte[] expected = (new String(LabServer.HTTP_RESPONSE, StandardCharsets.US_ASCII).repeat(3))
            .getBytes(StandardCharsets.US_ASCII);
        for (Competitor c : List.of(Competitor.RINGWIRE, Competitor.NETTY_NIO, Competitor.BLOCKING_VIRTUAL)) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.HTTP, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                OutputStream out = s.getOutputStream();
                out.write(request.repeat(3).getBytes(StandardCharsets.US_ASCII)); // pipelined: one write
                out.flush();
                byte[] got = new BufferedInputStream(s.getInputStream()).readNBytes(expected.length);
                assertEquals(new String(expected, StandardCharsets.US_ASCII),
                    new String(got, StandardCharsets.US_ASCII), c.label());
            }
        }
    }

    @Test
    void wrkDrivesEveryKindOfServerWithAndWithoutPipelining() throws Exception {
        List<String> notes = new ArrayList<>();
        List<Experiment> e = Workloads.http(settings(Competitor.RINGWIRE, Competitor.BLOCKING_PLATFORM,
            Competitor.VERTX_RINGWIRE), List.of(8), List.of(1, 4), 0, notes::add);
        assumeTrue(!e.isEmpty(), () -> "wrk unavailable: " + notes);
        assertEquals(2, e.size());
        for (Experiment x : e) {
            for (RunResult r : clean(x, 3)) {
                assertFalse(Double.isNaN(r.p50Us()), () -> "wrk's median latency: " + r);
                assertTrue(r.loadgenUtil() >= 0, () -> "wrk's own CPU, read once it has ended: " + r);
            }
        }
    }

    @Test
    void wrkPacedToARateOffersThatRateWithAndWithoutPipelining() throws Exception {
        List<String> notes = new ArrayList<>();
        // 8 connections: a write every 40 ms each (160 ms with 4 pipelined requests). The window's pause is the period
        // less the median of what three one-second calibration runs saw pass besides their pause (the server's answer,
        // ~1 ms): only if two of the three ran at half the rate or less (a stall of 20 ms a request) and the window
        // then did not could the window offer twice the rate; a slowness that lasts only lowers it
        double rate = 200;
        List<Experiment> e = Workloads.http(settings(Competitor.RINGWIRE), List.of(8), List.of(1, 4), rate,
            notes::add);
        assumeTrue(!e.isEmpty(), () -> "wrk unavailable: " + notes);
        for (Experiment x : e) {
            for (RunResult r : clean(x, 1)) {
                assertTrue(r.variant().endsWith(", 200 req/s"), r::variant);
                assertEquals(rate, r.offeredRate(), () -> "the rate asked for, recorded as offered: " + r);
                // unpaced, 8 connections get thousands of answers a second
                assertTrue(r.rate() < 2 * rate, () -> "paced: " + r);
            }
        }
    }

    @Test
    void aPaceFinerThanWrksTimerIsSaidToBeRough() {
        List<String> notes = new ArrayList<>();
        List<Experiment> e = Workloads.http(settings(Competitor.RINGWIRE), List.of(256, 1024), List.of(1), 80_000,
            notes::add);
        assumeTrue(!e.isEmpty(), () -> "wrk unavailable: " + notes);
        assertEquals(2, e.size(), "both still run");
        List<String> rough = notes.stream().filter(n -> n.contains("the pace is rough")).toList();
        assertEquals(1, rough.size(), () -> "256 conns: a write every 3.2 ms; 1,024: every 12.8 ms: " + notes);
        assertTrue(rough.get(0).contains("256 conns"), rough::toString);
    }

    @Test
    void vertxServersServeHttpOnly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Workloads.echo(settings(Competitor.VERTX_RINGWIRE), 1, 128, 1, 0));
        assertTrue(e.getMessage().contains("http workload only"), e.getMessage());
    }

    @Test
    void costModelReportsEveryFigureOrSaysItWasTooNoisy() throws Exception {
        CostModel.Costs c = CostModel.measure(128, 2_000);
        System.out.print(c.table()); // the figures, for whoever reads the test log
        assertEquals(CostModel.BATCHES.length, c.perOpAtN().length);
        List<Double> figures = new ArrayList<>(List.of(c.s(), c.w(), c.t()));
        for (double v : c.perOpAtN()) {
            figures.add(v);
        }
        for (double v : figures) {
            // a timing never decides this test: each figure is a positive cost, or NaN with a caveat saying why
            assertTrue(v > 0 || Double.isNaN(v), c::table);
            assertTrue(!Double.isNaN(v) || !c.caveats().isEmpty(), c::table);
        }
        assertEquals(1 + 1 + CostModel.BATCHES.length + c.caveats().size(), c.table().lines().count(), c::table);
    }
}
