package io.ringwire.lab;

import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The echo experiment (seed 001): each server in a fresh JVM pinned to one core (when there are two), this JVM's load
 * generator on the other, an unmeasured warm-up, a measured window, servers alternating A B C / C B A across rounds.
 */
public final class EchoExperiment {
    /** What to run. */
    public record Settings(List<Competitor> servers, int rounds, int conns, int size, int depth, double warmupSeconds,
                           double seconds, int threads) { }

    private final Settings settings;
    private final Consumer<String> progress;

    /**
     * @param settings what to run
     * @param progress receives one line per step
     */
    public EchoExperiment(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * @return every run, in the order made
     * @throws IOException if a server cannot start
     * @throws InterruptedException if interrupted
     */
    public List<RunResult> run() throws IOException, InterruptedException {
        List<RunResult> results = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            List<Competitor> order = new ArrayList<>(settings.servers());
            if (round % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            for (Competitor c : order) {
                progress.accept(String.format("round %d/%d  %-18s %d conns × %d B × depth %d ...", round,
                    settings.rounds(), c.label(), settings.conns(), settings.size(), settings.depth()));
                RunResult r = runOnce(c, round);
                progress.accept(String.format("    %,.0f round trips/s, p99 %,.0f µs, server %.2f µs CPU/RT, "
                    + "%d mismatches, %d errors", r.rps(), r.p99Us(), r.serverCpuUsPerRt(), r.mismatches(),
                    r.errors()));
                results.add(r);
            }
        }
        return results;
    }

    private RunResult runOnce(Competitor competitor, int round) throws IOException, InterruptedException {
        int port = freePort();
        Process server = startServer(competitor, port);
        try {
            EchoLoad load = new EchoLoad(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                settings.conns(), settings.size(), settings.depth());
            long pid = server.pid();
            double[] cpu = new double[2];
            long[] wall = new long[2];
            int[] calls = {0};
            EchoLoad.Result r = load.run(settings.warmupSeconds(), settings.seconds(), () -> {
                int i = Math.min(calls[0]++, 1);
                cpu[i] = ProcessStats.cpuSeconds(pid);
                wall[i] = System.nanoTime();
            });
            double window = (wall[1] - wall[0]) / 1e9;
            double serverCpu = cpu[1] - cpu[0];
            Histogram h = r.latencyNanos();
            return new RunResult(competitor.label(), round, r.rps(), h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
                r.roundTrips() == 0 ? Double.NaN : serverCpu * 1e6 / r.roundTrips(), serverCpu / window,
                r.cpuSeconds() / window, ProcessStats.peakRssKiB(pid) / 1024.0, r.mismatches(), r.errors());
        } finally {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Pins servers to CPU 1 when the machine has two cores or more and taskset exists. */
    static boolean canPin() {
        return onlineCpus() >= 2 && TASKSET != null;
    }

    /** CPUs online on the machine (not this process's affinity: the launcher pins the lab itself to CPU 0). */
    static int onlineCpus() {
        try {
            int n = 0;
            for (String part : Files.readString(Path.of("/sys/devices/system/cpu/online")).trim().split(",")) {
                String[] r = part.split("-");
                n += r.length == 1 ? 1 : Integer.parseInt(r[1]) - Integer.parseInt(r[0]) + 1;
            }
            return n;
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    private static final String TASKSET = findTaskset();

    private static String findTaskset() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, "taskset");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private Process startServer(Competitor competitor, int port) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (canPin()) {
            cmd.addAll(List.of(TASKSET, "-c", "1"));
        }
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-cp", System.getProperty("java.class.path"), LabServer.class.getName(), competitor.label(),
            Integer.toString(port), Integer.toString(settings.threads())));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("READY")) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // keep the pipe from filling
                        }
                    } catch (IOException ignored) {
                        // server ended
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return p;
            }
            seen.append(line).append('\n');
        }
        p.waitFor(5, TimeUnit.SECONDS);
        throw new IOException(competitor.label() + " server did not start (exit " + (p.isAlive() ? "?" : p.exitValue())
            + "):\n" + seen);
    }
}
