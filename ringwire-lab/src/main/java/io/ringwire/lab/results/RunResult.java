package io.ringwire.lab.results;

/**
 * One measured run of one server on one workload.
 *
 * @param workload        e.g. {@code echo}
 * @param variant         the workload's parameters, e.g. {@code 500 conns × 128 B × 1}
 * @param server          competitor label
 * @param round           round number (servers alternate order between rounds)
 * @param warmupSeconds   how long the unmeasured warm-up lasted
 * @param rate            answers per second (messages, round trips or requests)
 * @param offeredRate     open loop: the scheduled rate; NaN for a closed loop
 * @param p50Us           median latency, µs
 * @param p99Us           99th percentile, µs
 * @param p999Us          99.9th percentile, µs
 * @param maxUs           largest latency, µs
 * @param streamsPerSec   finite streams completed per second (NaN without streams)
 * @param streamP99Ms     99th percentile whole-stream time, ms (NaN without streams)
 * @param sendLagP99Us    open loop: the generator's own lateness, 99th percentile, µs (large: it was the limit)
 * @param serverCpuUsPerMsg server CPU (its process CPU clock) per answer, µs: every thread but the JIT compilers
 * @param serverUtil      server CPU over the window, in cores, JIT compilers excluded
 * @param jitUtil         the server's JIT compiler threads over the window, in cores (warm-up not yet over if large)
 * @param loadgenUtil     the load generator's CPU over the window, in cores (≈1: it was the limit)
 * @param labJitUtil      the lab's own JIT compiler threads over the window, in cores: they share the generator's
 *                        core, so a window where they worked (the lab's code compiling late) delayed its load
 * @param peakRssMiB      server's peak RSS over its life (VmHWM); mostly heap pages, so also a matter of GC timing
 * @param nonHeapMiB      what the server JVM had committed outside the Java heap at the window's end (Native Memory
 *                        Tracking): code, metaspace, threads, GC structures and native buffers such as io_uring rings
 * @param rssOutsideHeapMiB the server's resident set outside the Java heap at the window's end
 *                        ({@code /proc/<pid>/smaps} minus the heap's mappings): what the transport, the JIT and the C
 *                        library hold, whatever the collector's sizing
 * @param heapPeakMiB     server's peak heap in use during the window (sampled every 10 ms): garbage included, so
 *                        it grows with the rate (more allocated between collections) as much as with what is kept
 * @param liveHeapMiB     server's heap in use after a full collection at the window's end, the load still on: what
 *                        it retains under load (outbound queues, cumulations, per-connection state), without garbage
 * @param directPeakMiB   server's peak pooled direct memory (Netty's default allocator) during the window
 * @param gcCount         server's collections during the window
 * @param gcMillis        server's collection time during the window
 * @param allocBytesPerMsg heap bytes the server allocated per answer during the window (garbage drives GC and RSS)
 * @param voluntaryCtxSwitchesPerKMsg the server's voluntary context switches (a thread blocked: a wait for work, a
 *                        wake-up after it) per 1,000 answers during the window, summed over its threads
 *                        ({@link io.ringwire.lab.server.SoftwareCounters}: the lab's own threads in it left out, a
 *                        thread that ended inside the window lost); NaN if not read
 * @param involuntaryCtxSwitchesPerKMsg its involuntary context switches (preempted) per 1,000 answers, likewise;
 *                        with the voluntary ones, perf's {@code context-switches}
 * @param minorFaultsPerKMsg the server process's minor page faults per 1,000 answers during the window (a page
 *                        mapped without I/O, e.g. fresh heap or buffer memory touched for the first time)
 * @param majorFaultsPerKMsg its major page faults (a page read from storage) per 1,000 answers; with the minor ones,
 *                        perf's {@code page-faults}
 * @param cpuMigrationsPerKMsg its threads' CPU migrations per 1,000 answers (perf's {@code cpu-migrations}; 0 for a
 *                        server pinned to one CPU); NaN where the kernel has no {@code /proc/PID/task/TID/sched}
 * @param sqesPerEnter    Ringwire only: SQEs submitted per io_uring_enter during the window (the cost model's n)
 * @param iovecsPerWrite  Ringwire only: iovecs per gathered write
 * @param bytesPerRecv    Ringwire only: bytes per receive completion
 * @param bufferRingEmpty Ringwire only: receives that found the buffer ring empty (ENOBUFS) in the window
 * @param loopIterations  Ringwire only: event-loop iterations in the window
 * @param mismatches      echoed bytes that differed from what was sent
 * @param errors          connection errors or failed requests
 * @param starved         connections left waiting through the whole window for an answer that came after it
 *                        (a server that starves some connections while serving the rest; not an error)
 * @param foreignCores    CPU used during the window by processes other than the server and the lab (other work
 *                        on a shared machine), in cores; above {@link #CONTAMINATED_CORES} the run is flagged
 * @param profiled        whether a profiler sampled the server (or redis-client's client) during the window
 *                        ({@code --profile}): its figures carry the profiler's cost and enter no verdict
 */
public record RunResult(String workload, String variant, String server, int round, double warmupSeconds, double rate,
                        double offeredRate,
                        double p50Us, double p99Us, double p999Us, double maxUs, double streamsPerSec,
                        double streamP99Ms, double sendLagP99Us, double serverCpuUsPerMsg, double serverUtil,
                        double jitUtil, double loadgenUtil, double labJitUtil, double peakRssMiB, double nonHeapMiB,
                        double rssOutsideHeapMiB, double heapPeakMiB, double liveHeapMiB, double directPeakMiB,
                        double gcCount, double gcMillis, double allocBytesPerMsg,
                        double voluntaryCtxSwitchesPerKMsg, double involuntaryCtxSwitchesPerKMsg,
                        double minorFaultsPerKMsg, double majorFaultsPerKMsg, double cpuMigrationsPerKMsg,
                        double sqesPerEnter, double iovecsPerWrite, double bytesPerRecv, double bufferRingEmpty,
                        double loopIterations, long mismatches, long errors, long starved,
                        double foreignCores, boolean profiled) {
    /** A run no profiler sampled, its software counters not read (NaN). */
    public RunResult(String workload, String variant, String server, int round, double warmupSeconds, double rate,
                     double offeredRate,
                     double p50Us, double p99Us, double p999Us, double maxUs, double streamsPerSec,
                     double streamP99Ms, double sendLagP99Us, double serverCpuUsPerMsg, double serverUtil,
                     double jitUtil, double loadgenUtil, double labJitUtil, double peakRssMiB, double nonHeapMiB,
                     double rssOutsideHeapMiB, double heapPeakMiB, double liveHeapMiB, double directPeakMiB,
                     double gcCount, double gcMillis, double allocBytesPerMsg,
                     double sqesPerEnter, double iovecsPerWrite, double bytesPerRecv, double bufferRingEmpty,
                     double loopIterations, long mismatches, long errors, long starved,
                     double foreignCores) {
        this(workload, variant, server, round, warmupSeconds, rate, offeredRate, p50Us, p99Us, p999Us, maxUs,
            streamsPerSec, streamP99Ms, sendLagP99Us, serverCpuUsPerMsg, serverUtil, jitUtil, loadgenUtil, labJitUtil,
            peakRssMiB, nonHeapMiB, rssOutsideHeapMiB, heapPeakMiB, liveHeapMiB, directPeakMiB, gcCount, gcMillis,
            allocBytesPerMsg, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, sqesPerEnter, iovecsPerWrite,
            bytesPerRecv, bufferRingEmpty, loopIterations, mismatches, errors, starved, foreignCores, false);
    }

    /** Foreign CPU load above which a run's figures are not trusted. */
    public static final double CONTAMINATED_CORES = 0.2;

    /** @return whether other processes used enough CPU during the window to disturb it */
    public boolean contaminated() {
        return foreignCores > CONTAMINATED_CORES;
    }

    /** @return the same run, marked as profiled */
    public RunResult asProfiled() {
        return new RunResult(workload, variant, server, round, warmupSeconds, rate, offeredRate, p50Us, p99Us, p999Us,
            maxUs, streamsPerSec, streamP99Ms, sendLagP99Us, serverCpuUsPerMsg, serverUtil, jitUtil, loadgenUtil,
            labJitUtil, peakRssMiB, nonHeapMiB, rssOutsideHeapMiB, heapPeakMiB, liveHeapMiB, directPeakMiB, gcCount,
            gcMillis, allocBytesPerMsg, voluntaryCtxSwitchesPerKMsg, involuntaryCtxSwitchesPerKMsg, minorFaultsPerKMsg,
            majorFaultsPerKMsg, cpuMigrationsPerKMsg, sqesPerEnter, iovecsPerWrite, bytesPerRecv, bufferRingEmpty,
            loopIterations, mismatches, errors, starved, foreignCores, true);
    }
}
