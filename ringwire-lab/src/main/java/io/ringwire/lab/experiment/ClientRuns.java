package io.ringwire.lab.experiment;

import io.ringwire.lab.client.LettuceClient;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.server.RedisServerProcess;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.server.SoftwareCounters;

import java.io.IOException;
import java.util.Map;

/**
 * The redis-client workload's runs, where the measured process is the client: each run a fresh redis-server (on CPU 0,
 * beside the lab, which only waits during the window) and a fresh client JVM ({@link LettuceClient}, on CPU 1), whose
 * load runs from its start; the window opens once the client's JIT compiler threads are quiet ({@link Warmup}), as a
 * server's does. The client's CPU over the window, its JIT compiler threads apart, over the commands answered in it is
 * its CPU per command; redis-server's CPU over the window stands where the load generator's does in the other
 * workloads (the other side, a core of its own). With {@code --profile} async-profiler samples the client JVM over the
 * window ({@link RunProfiler}), as it samples a server in the other workloads.
 *
 * @param program  redis-server's path
 * @param settings clients, rounds, timing; {@code threads} is Lettuce's I/O threads
 * @param mode     the load: set, get, pipeline or rate
 * @param size     value bytes
 * @param depth    commands in flight, or per pipelined batch
 * @param rate     commands per second at a fixed rate; 0 otherwise
 */
record ClientRuns(String program, Experiment.Settings settings, String mode, int size, int depth, double rate)
    implements Experiment.Runner {

    @Override
    public RunResult run(Competitor client, int round, RunProfiler profiler) throws IOException, InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.start(program);
             ServerProcess jvm = ServerProcess.start(client.label() + " client", LettuceClient.command(client,
                 redis.address(), settings.threads(), settings.jvm(), profiler.jvmFlags(), mode, size, depth, rate),
                 redis.address())) {
            long pid = jvm.pid();
            long self = ProcessHandle.current().pid();
            Warmup warmup = new Warmup(settings.warmupSeconds(), settings.maxWarmupSeconds(), pid);
            while (!warmup.over()) {
                Thread.sleep(20);
            }
            jvm.resetStats(); // the client's window starts: its counters, latencies, peaks and GC counts
            profiler.windowOpens(jvm); // before the CPU clock is read: starting it is not the window's work
            double[] cpu = new double[2];
            double[] jit = new double[2];
            double[] machine = new double[2];
            double[] lab = new double[2];
            double[] labJit = new double[2];
            double[] server = new double[2];
            long[] wall = new long[2];
            SoftwareCounters.Snapshot[] counters = new SoftwareCounters.Snapshot[2];
            for (int i = 0; i < 2; i++) {
                if (i == 1) {
                    long end = wall[0] + (long) (settings.seconds() * 1e9);
                    for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                        Thread.sleep(Math.max(1, (end - now) / 1_000_000));
                    }
                }
                cpu[i] = ProcessStats.cpuSeconds(pid);
                jit[i] = ProcessStats.jitCpuSeconds(pid);
                machine[i] = ProcessStats.machineBusySeconds();
                lab[i] = ProcessStats.cpuSecondsWithChildren(self);
                labJit[i] = ProcessStats.jitCpuSeconds(self);
                server[i] = ProcessStats.cpuSeconds(redis.pid());
                wall[i] = System.nanoTime();
                counters[i] = SoftwareCounters.read(pid); // after the clocks: it reads two files per thread
                if (i == 0) {
                    warmup.windowOpened(wall[0]);
                }
            }
            profiler.windowCloses(jvm); // as soon as the clocks are read, before LIVE's full collection
            Map<String, Double> load = jvm.values("LOAD", 10);
            if (load.isEmpty()) {
                throw new IOException(client.label() + " client (pid " + pid + ") did not report its window");
            }
            Map<String, Double> s = jvm.stats();
            Map<String, Double> live = jvm.live(); // a full collection, after the window's figures are taken
            // the load stops, what is in flight is answered, every key is read back: the run's failures in all
            Map<String, Double> finished = jvm.values("FINISH", 60);
            double window = (wall[1] - wall[0]) / 1e9;
            double jitCpu = jit[1] - jit[0];
            double clientCpu = cpu[1] - cpu[0] - jitCpu;
            double redisCpu = server[1] - server[0];
            double foreign = Math.max(0, (machine[1] - machine[0]) - (cpu[1] - cpu[0]) - (lab[1] - lab[0])
                - redisCpu) / window;
            long commands = load.get("commands").longValue();
            // the load stopped, the profiler too: the client writes its flame graph with nothing else to do
            profiler.keep(jvm, commands == 0 ? Double.NaN : (cpu[1] - cpu[0]) * 1e6 / commands);
            long mismatches = finished.getOrDefault("mismatches", load.get("mismatches")).longValue();
            long errors = finished.isEmpty() ? load.get("errors").longValue() + 1 // it did not finish: an error
                : finished.get("errors").longValue();
            SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(counters[0], counters[1], commands);
            return new RunResult("redis-client", Workloads.redisClientVariant(mode, size, depth, rate),
                client.label(), round, warmup.seconds(), commands / load.get("seconds"), load.get("offeredRate"),
                load.get("p50Us"), load.get("p99Us"), load.get("p999Us"), load.get("maxUs"), Double.NaN, Double.NaN,
                load.get("sendLagP99Us"), commands == 0 ? Double.NaN : clientCpu * 1e6 / commands,
                clientCpu / window, jitCpu / window, redisCpu / window, (labJit[1] - labJit[0]) / window,
                ProcessStats.peakRssKiB(pid) / 1024.0,
                s.getOrDefault("nonHeapCommittedMiB", Double.NaN), s.getOrDefault("rssOutsideHeapMiB", Double.NaN),
                s.getOrDefault("heapPeakMiB", Double.NaN), live.getOrDefault("liveHeapMiB", Double.NaN),
                s.getOrDefault("directPeakMiB", Double.NaN),
                s.getOrDefault("gcCount", Double.NaN), s.getOrDefault("gcMillis", Double.NaN),
                commands == 0 ? Double.NaN : s.getOrDefault("allocatedBytes", Double.NaN) / commands,
                k.voluntarySwitches(), k.involuntarySwitches(), k.minorFaults(), k.majorFaults(), k.migrations(),
                per(s, "sqes", "enters"), per(s, "writeIovecs", "writes"), per(s, "recvBytes", "recvs"),
                s.getOrDefault("bufferRingExhausted", Double.NaN), s.getOrDefault("iterations", Double.NaN),
                mismatches, errors, 0, foreign, profiler.profiled());
        }
    }

    private static double per(Map<String, Double> s, String what, String per) {
        Double a = s.get(what);
        Double b = s.get(per);
        return a == null || b == null || b == 0 ? Double.NaN : a / b;
    }
}
