package io.ringwire.lab;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A long mixed run against one server, to see what only time shows: leaks and drift. Every sample period, three
 * loads run at once: RPC-style finite streams on a few connections (closed loop), many connections each sending a
 * little at a fixed total rate (open loop), and connections opened, used once and closed, one after the other. Each
 * load connects afresh and closes at the end of its period, so the server also sees hundreds of connections come and
 * go per sample. After each period the server's resident set, descriptors, heap, Netty direct memory and the
 * binding's native memory are read, and a row is printed; every echoed byte is checked.
 *
 * <p>The verdict: no error or mismatch, descriptors back to the same count after every sample, and the resident set
 * of the second half of the run no higher than the first half's highest by more than a tolerance (JIT and heap
 * growth settle in the first half). The first period is warm-up (JIT, the heap's first pages) and is not judged for
 * RSS, and at least four periods after it are needed to judge it at all: a run of a few seconds cannot tell growth
 * from warm-up, however fast or slow the machine.
 */
final class Soak {
    /** One sample: what the period served and what the server held after it. */
    record Sample(double atSeconds, double rpcRate, double openRate, long churned, long errors, long mismatches,
                  long rssKiB, long fds, double heapMiB, double directMiB, double nativeBytes) { }

    /** RSS growth in the second half over the first half's highest that still counts as flat. */
    static final double RSS_TOLERANCE = 0.10;

    private final Competitor competitor;
    private final double minutes;
    private final double secondsPerSample;
    private final PrintStream out;
    /** The server's descriptors before any load: what it must come back to after every period. */
    private long baselineFds;

    Soak(Competitor competitor, double minutes, double secondsPerSample, PrintStream out) {
        this.competitor = competitor;
        this.minutes = minutes;
        this.secondsPerSample = secondsPerSample;
        this.out = out;
    }

    /** @return the samples, in order */
    List<Sample> run() throws IOException, InterruptedException {
        List<Sample> samples = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(competitor, Protocol.FRAMES, 1)) {
            InetSocketAddress address = server.address();
            baselineFds = ProcessStats.openFds(server.pid());
            LoadGenerator.Engine engine = LoadGenerator.Engine.best();
            out.printf(Locale.ROOT, "soak: %s for %.1f min, a row every %.0f s; rpc 16 conns × 64 streams × 32 msgs "
                    + "× 128 B (closed loop) + 500 conns at 5,000 msgs/s × 256 B (open loop) + connections opened, "
                    + "used once and closed; generator %s%n", competitor.label(), minutes, secondsPerSample,
                engine.label());
            out.printf(Locale.ROOT, "%8s %12s %12s %8s %6s %6s %10s %6s %9s %9s %12s%n", "t s", "rpc msgs/s",
                "open msgs/s", "churned", "errors", "bad", "RSS MiB", "fds", "heap MiB", "direct MiB",
                "native B");
            long deadline = System.nanoTime() + (long) (minutes * 60e9);
            long start = System.nanoTime();
            while (System.nanoTime() < deadline || samples.isEmpty()) {
                samples.add(sample(server, address, engine, (System.nanoTime() - start) / 1e9));
                Sample s = samples.get(samples.size() - 1);
                out.printf(Locale.ROOT, "%8.0f %12.0f %12.0f %8d %6d %6d %10.1f %6d %9.1f %9.1f %12.0f%n",
                    s.atSeconds(), s.rpcRate(), s.openRate(), s.churned(), s.errors(), s.mismatches(),
                    s.rssKiB() / 1024.0, s.fds(), s.heapMiB(), s.directMiB(), s.nativeBytes());
                out.flush();
            }
        }
        return samples;
    }

    private Sample sample(ServerProcess server, InetSocketAddress address, LoadGenerator.Engine engine, double at)
        throws InterruptedException {
        LoadGenerator rpc = new LoadGenerator(address, new LoadGenerator.Config(16, 128, 64, 32, 0, 1, 1), engine);
        LoadGenerator open = new LoadGenerator(address, new LoadGenerator.Config(500, 256, 1, 0, 5000, 1, 1), engine);
        CompletableFuture<LoadGenerator.Result> rpcResult = runAsync(rpc);
        CompletableFuture<LoadGenerator.Result> openResult = runAsync(open);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong churned = new AtomicLong();
        AtomicLong churnErrors = new AtomicLong();
        Thread churn = Thread.ofPlatform().daemon().name("soak-churn").start(() -> {
            byte[] frame = {0, 0, 0, 4, 1, 2, 3, 4};
            while (!stop.get()) {
                try (Socket s = new Socket(address.getAddress(), address.getPort())) {
                    s.setSoTimeout(10_000);
                    OutputStream o = s.getOutputStream();
                    o.write(frame);
                    byte[] back = new byte[frame.length];
                    new DataInputStream(s.getInputStream()).readFully(back);
                    if (!java.util.Arrays.equals(frame, back)) {
                        churnErrors.incrementAndGet();
                    }
                    churned.incrementAndGet();
                } catch (IOException e) {
                    churnErrors.incrementAndGet();
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        LoadGenerator.Result r;
        LoadGenerator.Result o;
        try {
            r = rpcResult.join();
            o = openResult.join();
        } finally {
            stop.set(true);
            churn.join(15_000);
        }
        // every connection of the period is closed: give the server until its descriptors are back (at most 5 s)
        long pid = server.pid();
        for (int i = 0; i < 100 && ProcessStats.openFds(pid) != baselineFds; i++) {
            Thread.sleep(50);
        }
        Map<String, Double> stats = server.stats();
        return new Sample(at, r.rate(), o.rate(), churned.get(), r.errors() + o.errors() + churnErrors.get(),
            r.mismatches() + o.mismatches(), ProcessStats.rssKiB(pid), ProcessStats.openFds(pid),
            stats.getOrDefault("heapUsedMiB", Double.NaN), stats.getOrDefault("directUsedMiB", Double.NaN),
            stats.getOrDefault("bindingNativeBytes", Double.NaN));
    }

    private CompletableFuture<LoadGenerator.Result> runAsync(LoadGenerator g) {
        CompletableFuture<LoadGenerator.Result> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("soak-generator").start(() -> {
            try {
                f.complete(g.run(() -> true, secondsPerSample, () -> { }));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /**
     * @param samples a run's samples
     * @return what is wrong with them, empty if nothing: errors, descriptors that did not come back, native memory
     *         that moved, a resident set still growing in the second half
     */
    List<String> problems(List<Sample> samples) {
        return problems(samples, baselineFds);
    }

    /**
     * @param samples     a run's samples
     * @param baselineFds the server's descriptors before any load
     * @return what is wrong with them, empty if nothing
     */
    static List<String> problems(List<Sample> samples, long baselineFds) {
        List<String> problems = new ArrayList<>();
        long errors = samples.stream().mapToLong(Sample::errors).sum();
        long bad = samples.stream().mapToLong(Sample::mismatches).sum();
        if (errors > 0 || bad > 0) {
            problems.add(errors + " errors and " + bad + " mismatched bytes");
        }
        if (samples.stream().anyMatch(s -> s.fds() != baselineFds)) {
            problems.add("descriptors did not come back to " + baselineFds + " after every period: "
                + samples.stream().map(s -> Long.toString(s.fds())).toList());
        }
        double nativeBytes = samples.get(0).nativeBytes();
        if (samples.stream().anyMatch(s -> Double.compare(s.nativeBytes(), nativeBytes) != 0)) {
            problems.add("the binding's native memory moved between samples");
        }
        List<Sample> judged = samples.subList(Math.min(1, samples.size()), samples.size()); // after the warm-up
        if (judged.size() >= 4) {
            int half = judged.size() / 2;
            long firstHalfMax = judged.subList(0, half).stream().mapToLong(Sample::rssKiB).max().orElse(0);
            long secondHalfMax = judged.subList(half, judged.size()).stream().mapToLong(Sample::rssKiB).max()
                .orElse(0);
            if (secondHalfMax > firstHalfMax * (1 + RSS_TOLERANCE)) {
                problems.add(String.format(Locale.ROOT, "RSS still growing: %.1f MiB in the second half against at "
                    + "most %.1f MiB in the first", secondHalfMax / 1024.0, firstHalfMax / 1024.0));
            }
        }
        return problems;
    }
}
