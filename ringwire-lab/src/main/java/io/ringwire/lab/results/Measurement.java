package io.ringwire.lab.results;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.load.LoadGenerator;

/**
 * What a load generator saw in one measured window, whichever generator it was (the lab's own, or redis-benchmark).
 *
 * @param messages     answers received in the window
 * @param sent         messages sent in the window
 * @param streams      finite streams completed in the window (0 when the workload has none)
 * @param seconds      the window's length
 * @param p50Us        latency percentiles, µs
 * @param p90Us        90th
 * @param p99Us        99th
 * @param p999Us       99.9th
 * @param maxUs        largest
 * @param streamP99Ms  99th percentile of whole-stream time, ms (NaN without streams)
 * @param sendLagP99Us open loop: how late the 99th percentile send left against its schedule, µs (NaN closed loop)
 * @param mismatches   bytes that differed from what was sent
 * @param errors       connections lost or failed requests
 * @param starved      connections that waited through the whole window for an answer that came after it
 *                     ({@link LoadGenerator.Result#starved}); 0 where the generator cannot tell
 * @param loadgenCpuSeconds the generator's own CPU in the window (NaN if unknown)
 * @param offeredRate  messages per second the load was offered at: the lab's open loop, or a paced wrk; NaN when
 *                     the generator sent as fast as the server answered
 */
public record Measurement(long messages, long sent, long streams, double seconds, double p50Us, double p90Us,
                          double p99Us, double p999Us, double maxUs, double streamP99Ms, double sendLagP99Us,
                          long mismatches, long errors, long starved, double loadgenCpuSeconds, double offeredRate) {
    /** @return answers per second */
    public double rate() {
        return messages / seconds;
    }
}
