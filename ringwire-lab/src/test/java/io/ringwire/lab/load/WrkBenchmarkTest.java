package io.ringwire.lab.load;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the lab reads from wrk's report (wrk 4.1, Debian's build), and how it paces wrk to a rate. */
class WrkBenchmarkTest {
    @Test
    void readsRequestsPercentilesAndErrors() {
        WrkBenchmark.Result r = WrkBenchmark.parse("""
            Running 3s test @ http://127.0.0.1:8080/
              1 threads and 256 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency     1.10ms  344.79us  12.40ms   89.20%
                Req/Sec   231.01k    11.09k  247.41k    70.00%
              Latency Distribution
                 50%    1.05ms
                 75%    1.20ms
                 90%    1.41ms
                 99%  612.00us
              689605 requests in 3.00s, 51.30MB read
              Socket errors: connect 0, read 2, write 1, timeout 4
              Non-2xx or 3xx responses: 5
            Requests/sec: 229817.21
            Transfer/sec:     17.09MB
            """);
        assertEquals(689_605, r.requests());
        assertEquals(3.0, r.seconds(), 1e-9);
        assertEquals(1050, r.p50Us(), 1e-6);
        assertEquals(1410, r.p90Us(), 1e-6);
        assertEquals(612, r.p99Us(), 1e-6);
        assertEquals(12_400, r.maxUs(), 1e-6);
        assertEquals(2 + 1 + 4 + 5, r.errors());
    }

    @Test
    void aZeroPercentileIsUnknownNotZero() {
        // wrk 4.1 prints 0.00us for the 99th percentile of pipelined runs
        WrkBenchmark.Result r = WrkBenchmark.parse("""
              Latency Distribution
                 50%  625.00us
                 75%    0.88ms
                 90%    1.17ms
                 99%    0.00us
              2890768 requests in 1.00m, 215.03MB read
            """);
        assertEquals(2_890_768, r.requests());
        assertEquals(60.0, r.seconds(), 1e-9);
        assertEquals(625, r.p50Us(), 1e-6);
        assertTrue(Double.isNaN(r.p99Us()));
        assertEquals(0, r.errors());
    }

    @Test
    void noSummaryLineIsNoResult() {
        assertNull(WrkBenchmark.parse("unable to connect to 127.0.0.1:8080 Connection refused\n"));
    }

    @Test
    void aConnectionsPeriodOffersItsShareOfTheRate() {
        assertEquals(12.8, WrkBenchmark.periodMillis(256, 1, 20_000), 1e-9); // 256 connections, 20k/s: 78 each
        assertEquals(64.0, WrkBenchmark.periodMillis(64, 16, 16_000), 1e-9); // a write carries 16 requests
        assertTrue(Double.isInfinite(WrkBenchmark.periodMillis(64, 1, 0)));
    }

    @Test
    void thePauseIsTheTargetPeriodLessTheMedianRestSeen() {
        assertEquals(12.8, WrkBenchmark.pauseMillis(12.8, List.of()), 1e-9, "nothing seen yet: the target");
        // paused 12.8 ms, the rate said a period of 14.0: 1.2 ms passed besides the pause
        assertEquals(11.6, WrkBenchmark.pauseMillis(12.8, List.of(1.2)), 1e-9);
        // one noisy run (a period 8 ms longer) does not set the pace
        assertEquals(11.6, WrkBenchmark.pauseMillis(12.8, List.of(1.2, 8.0, 1.1)), 1e-9);
        // a busy wrk fires its whole-ms timer early: a rest below 0 lengthens the pause past the target
        assertEquals(3.6, WrkBenchmark.pauseMillis(3.2, List.of(-0.4, -0.5, -0.3)), 1e-9);
        // a rest longer than the target: no pause, and the rate asked for is not reached
        assertEquals(0.0, WrkBenchmark.pauseMillis(0.5, List.of(1.5)), 1e-9);
    }
}
