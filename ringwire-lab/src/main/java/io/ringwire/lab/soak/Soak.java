package io.ringwire.lab.soak;

import io.ringwire.lab.load.FileLoadGenerator;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.load.QuicLoadGenerator;
import io.ringwire.lab.load.TlsLoadGenerator;
import io.ringwire.lab.load.UdpLoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerProcess;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A long mixed run against one server, to see what only time shows: leaks and drift. Every sample period, its loads
 * run at once: RPC-style finite streams on a few connections (closed loop), many connections each sending a little at
 * a fixed total rate (open loop), and connections opened, used once and closed, one after the other. A server on a
 * Netty transport also serves every other channel type on the same event loop ({@link Protocol#MIXED}), and the
 * period loads each: UDP echo, echo over a Unix domain socket, files (regions from a File and from a FileChannel in
 * turn), echo behind TLS and over QUIC. Each load connects afresh and closes at the end of its period, so the server
 * also sees hundreds of connections come and go per sample. After each period the server's resident set,
 * descriptors, heap, Netty direct memory and the binding's native memory are read, and a row is printed; every
 * echoed byte is checked.
 *
 * <p>The verdict: no error or mismatch, descriptors back to the same count after every sample, and the resident set
 * of the second half of the run no higher than the first half's highest by more than a tolerance (JIT and heap
 * growth settle in the first half). The first period is warm-up (JIT, the heap's first pages) and is not judged for
 * RSS, and at least four periods after it are needed to judge it at all: a run of a few seconds cannot tell growth
 * from warm-up, however fast or slow the machine.
 */
public final class Soak {
    /**
     * One sample: what the period served and what the server held after it.
     *
     * @param rates answers (files: files) per second of each load, by name, in the order they print
     */
    record Sample(double atSeconds, Map<String, Double> rates, long churned, long errors, long mismatches,
                  long rssKiB, long fds, double heapMiB, double directMiB, double nativeBytes) { }

    /** RSS growth in the second half over the first half's highest that still counts as flat. */
    static final double RSS_TOLERANCE = 0.10;
    /** Bytes of each file the mixed soak fetches. */
    static final long FILE_SIZE = 256 * 1024;

    /** One load of a period: runs for the period and says what it saw. */
    private interface Load {
        public LoadGenerator.Result run(double seconds) throws Exception;
    }

    private final Competitor competitor;
    private final double minutes;
    private final double secondsPerSample;
    private final PrintStream out;
    /** The server's descriptors before any load: what it must come back to after every period. */
    private long baselineFds;

    public Soak(Competitor competitor, double minutes, double secondsPerSample, PrintStream out) {
        this.competitor = competitor;
        this.minutes = minutes;
        this.secondsPerSample = secondsPerSample;
        this.out = out;
    }

    /** @return whether the server serves every channel type ({@link Protocol#MIXED}): it is on a Netty transport */
    boolean mixed() {
        return competitor != Competitor.BLOCKING_PLATFORM && competitor != Competitor.BLOCKING_VIRTUAL
            && !competitor.httpOnly();
    }

    /** @return the samples, in order */
    public List<Sample> run() throws IOException, InterruptedException {
        List<Sample> samples = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(competitor, mixed() ? Protocol.MIXED : Protocol.FRAMES, 1)) {
            baselineFds = ProcessStats.openFds(server.pid());
            LoadGenerator.Engine engine = LoadGenerator.Engine.best();
            out.printf(Locale.ROOT, "soak: %s for %.1f min, a row every %.0f s; rpc 16 conns × 64 streams × 32 msgs "
                    + "× 128 B (closed loop) + 500 conns at 5,000 msgs/s × 256 B (open loop) + connections opened, "
                    + "used once and closed%s; generator %s%n", competitor.label(), minutes, secondsPerSample,
                mixed() ? " + udp 16 clients × 256 B + domain 32 conns × 256 B + files 4 conns × 256 KiB (File, "
                    + "FileChannel in turn) + tls 16 conns × 1 KiB × 2 + quic 4 conns × 1 KiB × 2" : "",
                engine.label());
            // a fixed number of periods, not a deadline: a period also sets up its connections (TLS and QUIC
            // handshakes), which a busy machine makes longer, and a soak that lost periods to that would say less
            int periods = periods(minutes, secondsPerSample);
            long start = System.nanoTime();
            while (samples.size() < periods) {
                samples.add(sample(server, engine, samples.size(), (System.nanoTime() - start) / 1e9));
                Sample s = samples.get(samples.size() - 1);
                if (samples.size() == 1) {
                    out.printf(Locale.ROOT, "%8s", "t s");
                    s.rates().keySet().forEach(k -> out.printf(Locale.ROOT, " %11s", k + "/s"));
                    out.printf(Locale.ROOT, " %8s %6s %6s %10s %6s %9s %9s %12s%n", "churned", "errors", "bad",
                        "RSS MiB", "fds", "heap MiB", "direct MiB", "native B");
                }
                out.printf(Locale.ROOT, "%8.0f", s.atSeconds());
                s.rates().values().forEach(r -> out.printf(Locale.ROOT, " %11.0f", r));
                out.printf(Locale.ROOT, " %8d %6d %6d %10.1f %6d %9.1f %9.1f %12.0f%n", s.churned(), s.errors(),
                    s.mismatches(), s.rssKiB() / 1024.0, s.fds(), s.heapMiB(), s.directMiB(), s.nativeBytes());
                out.flush();
            }
        }
        return samples;
    }

    /**
     * @param minutes          the soak's length
     * @param secondsPerSample one period's measured seconds
     * @return the periods that fill it, at least one
     */
    static int periods(double minutes, double secondsPerSample) {
        return Math.max(1, (int) Math.round(minutes * 60 / secondsPerSample));
    }

    /** @return this period's loads, by name, each a fresh generator */
    private Map<String, Load> loads(ServerProcess server, LoadGenerator.Engine engine, int period) {
        InetSocketAddress address = server.address();
        Map<String, Load> loads = new LinkedHashMap<>();
        loads.put("rpc", generator(address, new LoadGenerator.Config(16, 128, 64, 32, 0, 1, 1), engine));
        loads.put("open", generator(address, new LoadGenerator.Config(500, 256, 1, 0, 5000, 1, 1), engine));
        if (mixed()) {
            InetSocketAddress udp = server.address("udp");
            // a datagram counts as lost once unanswered for half a period (so a loss in a period's first half is
            // seen in it), seconds as the stalled-connection rule of the other loads: the udp-echo workload's 200 ms
            // would count a pause of the server's (a JIT burst at the start on a busy machine) as losses
            long lossMillis = (long) (secondsPerSample * 500);
            loads.put("udp", seconds -> new UdpLoadGenerator(udp, 16, 256, 1, lossMillis).run(() -> true, seconds,
                () -> { }));
            loads.put("domain", generator(UnixDomainSocketAddress.of(Protocol.domainSocketPath(address.getPort())),
                LoadGenerator.Config.closed(32, 256, 1), engine));
            InetSocketAddress files = server.address("files");
            loads.put("files", seconds -> new FileLoadGenerator(files, 4, FILE_SIZE, period % 2 == 1)
                .run(() -> true, seconds, () -> { }));
            InetSocketAddress tls = server.address("tls");
            loads.put("tls", seconds -> new TlsLoadGenerator(tls, 16, 1024, 2).run(() -> true, seconds, () -> { }));
            InetSocketAddress quic = server.address("quic");
            loads.put("quic", seconds -> new QuicLoadGenerator(quic, 4, 1024, 2).run(() -> true, seconds, () -> { }));
        }
        return loads;
    }

    private static Load generator(java.net.SocketAddress target, LoadGenerator.Config config,
                                  LoadGenerator.Engine engine) {
        return seconds -> new LoadGenerator(target, config, engine).run(() -> true, seconds, () -> { });
    }

    private Sample sample(ServerProcess server, LoadGenerator.Engine engine, int period, double at)
        throws InterruptedException {
        InetSocketAddress address = server.address();
        Map<String, CompletableFuture<LoadGenerator.Result>> running = new LinkedHashMap<>();
        loads(server, engine, period).forEach((name, load) -> running.put(name, runAsync(name, load)));
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
        Map<String, Double> rates = new LinkedHashMap<>();
        long errors = 0;
        long mismatches = 0;
        try {
            for (Map.Entry<String, CompletableFuture<LoadGenerator.Result>> e : running.entrySet()) {
                LoadGenerator.Result r = e.getValue().join();
                rates.put(e.getKey(), r.rate());
                // the soak judges one server's reliability: a connection it left unanswered through a whole period is
                // an error even if the answer came later (the comparison workloads count it apart, as starved)
                errors += r.errors() + r.starved();
                mismatches += r.mismatches();
                if (r.errors() > 0 || r.starved() > 0 || r.mismatches() > 0) {
                    out.printf(Locale.ROOT, "  %s: %d errors, %d starved connections, %d mismatches%n", e.getKey(),
                        r.errors(), r.starved(), r.mismatches());
                }
            }
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
        return new Sample(at, rates, churned.get(), errors + churnErrors.get(), mismatches, ProcessStats.rssKiB(pid),
            ProcessStats.openFds(pid), stats.getOrDefault("heapUsedMiB", Double.NaN),
            stats.getOrDefault("directUsedMiB", Double.NaN), stats.getOrDefault("bindingNativeBytes", Double.NaN));
    }

    private CompletableFuture<LoadGenerator.Result> runAsync(String name, Load load) {
        CompletableFuture<LoadGenerator.Result> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("soak-" + name).start(() -> {
            try {
                f.complete(load.run(secondsPerSample));
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
    public List<String> problems(List<Sample> samples) {
        return problems(samples, baselineFds);
    }

    /**
     * @param samples     a run's samples
     * @param baselineFds the server's descriptors before any load
     * @return what is wrong with them, empty if nothing
     */
    public static List<String> problems(List<Sample> samples, long baselineFds) {
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
