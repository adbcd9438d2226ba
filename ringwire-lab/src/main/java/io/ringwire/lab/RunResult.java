package io.ringwire.lab;

/**
 * One measured run of one server.
 *
 * @param server          competitor label
 * @param round           round number (servers alternate order between rounds)
 * @param rps             round trips per second
 * @param p50Us           median latency, µs
 * @param p99Us           99th percentile, µs
 * @param p999Us          99.9th percentile, µs
 * @param serverCpuUsPerRt server CPU (all threads, user + system) per round trip, µs
 * @param serverUtil      server CPU over the window, in cores
 * @param loadgenUtil     load generator thread's CPU over the window, in cores (≈1: the load generator was the limit)
 * @param peakRssMiB      server's peak RSS
 * @param mismatches      echoed bytes that differed from what was sent
 * @param errors          connection errors
 */
public record RunResult(String server, int round, double rps, double p50Us, double p99Us, double p999Us,
                        double serverCpuUsPerRt, double serverUtil, double loadgenUtil, double peakRssMiB,
                        long mismatches, long errors) {
}
