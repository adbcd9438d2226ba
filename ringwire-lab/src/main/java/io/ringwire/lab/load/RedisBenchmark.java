package io.ringwire.lab.load;

import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.host.DebianTool;
import io.ringwire.lab.results.Measurement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The critique's load: the real {@code redis-benchmark} (Debian's redis-tools) against each server's SET/GET store.
 * Unmeasured runs fill the warm-up's seconds and size the measured one to last about the window's seconds.
 */
public final class RedisBenchmark {
    private RedisBenchmark() { }

    /**
     * @param note receives what was done or why the workload cannot run
     * @return redis-benchmark's path (installed with redis-tools as root if missing), or null: skip the workload
     */
    public static String locate(Consumer<String> note) {
        return DebianTool.locate("redis", "redis-benchmark", "redis-tools", note);
    }

    /**
     * @param program  redis-benchmark's path
     * @param command  {@code set} or {@code get}
     * @param clients  concurrent connections (the critique: 10 and 50)
     * @param size     value bytes (the critique: 1024)
     * @param seconds  the measured window's length
     * @return a driver for one run
     */
    public static Driver driver(String program, String command, int clients, int size, double seconds) {
        return (target, warmupOver, edge) -> {
            // warm up in short runs until the warm-up is over (the JIT needs time, not a request count)
            double warmRate;
            int chunk = 10_000;
            do {
                warmRate = run(program, target.getPort(), command, clients, size, chunk).rps;
                chunk = (int) Math.max(2_000, Math.min(1_000_000, warmRate / 2));
            } while (!warmupOver.getAsBoolean());
            int requests = (int) Math.max(2_000, Math.min(50_000_000, warmRate * seconds));
            edge.run();
            long self = ProcessHandle.current().pid();
            double generatorCpu = -ProcessStats.endedChildrenCpuSeconds(self);
            Csv r = run(program, target.getPort(), command, clients, size, requests);
            generatorCpu += ProcessStats.endedChildrenCpuSeconds(self);
            edge.run();
            return new Measurement(requests, requests, 0, requests / r.rps, r.p50Ms * 1e3, Double.NaN,
                r.p99Ms * 1e3, Double.NaN, r.maxMs * 1e3, Double.NaN, Double.NaN, 0, r.errors, 0, generatorCpu,
                Double.NaN);
        };
    }

    /** One line of redis-benchmark's CSV. */
    public record Csv(double rps, double p50Ms, double p99Ms, double maxMs, long errors) { }

    private static Csv run(String program, int port, String command, int clients, int size, int requests)
        throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program, "-h", "127.0.0.1", "-p", Integer.toString(port),
            "-c", Integer.toString(clients), "-n", Integer.toString(requests), "-d", Integer.toString(size),
            "-t", command, "--csv")); // one key, as the critique ran it: the store's live set stays one value
        DebianTool.Output out = DebianTool.run(cmd, TimeUnit.MINUTES.toSeconds(10));
        Csv csv = parse(out.text(), command);
        if (csv == null || out.exit() != 0) {
            throw new IOException("redis-benchmark failed (exit " + out.exit() + "): " + String.join(" ", cmd)
                + "\n" + out.text().strip());
        }
        return csv;
    }

    /**
     * @param output  redis-benchmark --csv's output
     * @param command the test run, e.g. {@code set}
     * @return its line, or null if absent
     */
    public static Csv parse(String output, String command) {
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",
        // "max_latency_ms": fields 1, 4, 6 and 7 are used
        String want = "\"" + command.toUpperCase(Locale.ROOT) + "\"";
        long errors = output.lines().filter(l -> l.contains("Error") || l.contains("ERR")).count();
        for (String line : output.lines().toList()) {
            String[] f = line.split(",");
            if (f.length >= 8 && f[0].equals(want)) {
                return new Csv(num(f[1]), num(f[4]), num(f[6]), num(f[7]), errors);
            }
        }
        return null;
    }

    private static double num(String quoted) {
        return Double.parseDouble(quoted.replace("\"", "").trim());
    }
}
