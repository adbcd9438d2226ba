package io.ringwire.lab.load;

import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.host.DebianTool;
import io.ringwire.lab.results.Measurement;
import io.ringwire.lab.results.Stats;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP load by {@code wrk} (Debian's package of the same name), one thread, keep-alive connections, GET /; with a
 * pipeline depth above 1, each write carries that many requests. Runs of one second fill the warm-up, then one run
 * lasts the window. Paced ({@code rate > 0}): each connection pauses before each write (wrk's {@code delay} hook) so
 * that all of them together offer that many requests per second, a fixed load at which the servers' own costs
 * compare; at wrk's full speed the server and wrk each near a core, and a server's CPU per request is its core over
 * the rate the pair reached (docs/benchmarks.md, "How the lab measures"). The pause is per connection, after its
 * answer: a closed loop with think time, not an open loop, so a server that falls behind is offered less, which the
 * achieved rate shows.
 */
public final class WrkBenchmark {
    private WrkBenchmark() { }

    /**
     * @param note receives what was done or why the workload cannot run
     * @return wrk's path (installed as root if missing), or null: skip the workload
     */
    public static String locate(Consumer<String> note) {
        return DebianTool.locate("http", "wrk", "wrk", note);
    }

    /**
     * The script (the resource {@code wrk.lua}, which {@code bench/layers.sh} uses too): {@code depth} GETs per write
     * when its first argument is above 1; when the second, a pause in ms, is above 0, wrk waits that long on average
     * before each write.
     */
    private static final String SCRIPT = script();

    private static String script() {
        try (InputStream in = WrkBenchmark.class.getResourceAsStream("wrk.lua")) {
            if (in == null) {
                throw new IllegalStateException("wrk.lua missing from the lab's classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Paced one-second runs after the warm-up that set the window's pause ({@link #pauseMillis}). */
    static final int PACING_RUNS = 3;

    /**
     * A connection's period, ms, below which the pace is rough: at 80k requests/s over 256 connections (3.2 ms) the
     * windows reached 63k-113k, at 30k (8.5 ms) 25k-33k (docs/benchmarks.md, "http").
     */
    public static final double ROUGH_PACE_MILLIS = 5;

    /**
     * @param program     wrk's path
     * @param connections keep-alive connections
     * @param depth       requests per write (1: no pipelining)
     * @param rate        requests per second over all connections, paced; 0: as fast as the server answers
     * @param settings    warm-up and window lengths
     * @return a driver for one run
     */
    public static Driver driver(String program, int connections, int depth, double rate, double windowSeconds) {
        return (target, warmupOver, edge) -> {
            Path script = null;
            try {
                if (depth > 1 || rate > 0) {
                    script = Files.createTempFile("ringwire-wrk", ".lua");
                    Files.writeString(script, SCRIPT);
                }
                do {
                    run(program, target.getPort(), connections, depth, 0, script, 1); // full speed: JIT-hot
                } while (!warmupOver.getAsBoolean());
                double pause = 0;
                if (rate > 0) {
                    double period = periodMillis(connections, depth, rate);
                    List<Double> rests = new ArrayList<>();
                    for (int i = 0; i < PACING_RUNS; i++) {
                        pause = pauseMillis(period, rests);
                        Result r = run(program, target.getPort(), connections, depth, pause, script, 1);
                        if (r.requests > 0) {
                            rests.add(periodMillis(connections, depth, r.requests / r.seconds) - pause);
                        }
                    }
                    pause = pauseMillis(period, rests);
                }
                int seconds = (int) Math.max(1, Math.round(windowSeconds));
                edge.run();
                long self = ProcessHandle.current().pid();
                double wrkCpu = -ProcessStats.endedChildrenCpuSeconds(self);
                Result r = run(program, target.getPort(), connections, depth, pause, script, seconds);
                wrkCpu += ProcessStats.endedChildrenCpuSeconds(self);
                edge.run();
                return new Measurement(r.requests, r.requests, 0, r.seconds, r.p50Us, r.p90Us, r.p99Us, Double.NaN,
                    r.maxUs, Double.NaN, Double.NaN, 0, r.errors, 0, wrkCpu, rate > 0 ? rate : Double.NaN);
            } finally {
                if (script != null) {
                    Files.deleteIfExists(script);
                }
            }
        };
    }

    /** @return ms between two writes of one connection for {@code connections} to offer {@code rate} requests/s */
    public static double periodMillis(int connections, int depth, double rate) {
        return rate > 0 ? connections * depth * 1000.0 / rate : Double.POSITIVE_INFINITY;
    }

    /**
     * The pause that makes a connection's period {@code targetMillis}: the target less the median of what the paced
     * runs saw pass between two writes besides the pause ({@code rests}: the measured period less the pause). That
     * rest is the server's answer and wrk's timer, which counts whole ms: it fires late when wrk's loop sleeps
     * (about 1 ms on this project's machines), early when a busy loop finds it due in a millisecond already begun
     * (a rest below 0, so that a pause of the target alone offers more than asked). The median: one noisy run does
     * not set the window's pace. At least 0: a target the rest alone exceeds is not reached, and the achieved rate
     * says so. With no rest known yet, the target.
     *
     * @param targetMillis the period that offers the rate asked for
     * @param rests        what the paced runs so far saw besides their pauses, ms
     * @return the pause
     */
    static double pauseMillis(double targetMillis, List<Double> rests) {
        return rests.isEmpty() ? targetMillis : Math.max(0, targetMillis - Stats.median(rests));
    }

    /**
     * What one wrk run printed.
     *
     * @param requests responses received
     * @param seconds  the run's length
     * @param errors   socket errors (connect, read, write, timeout) and non-2xx/3xx responses
     */
    record Result(long requests, double seconds, double p50Us, double p90Us, double p99Us, double maxUs,
                  long errors) { }

    private static Result run(String program, int port, int connections, int depth, double pauseMillis, Path script,
                              int seconds) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program, "-t1", "-c" + connections, "-d" + seconds + "s",
            "--timeout", "10s", "--latency"));
        if (script != null) {
            cmd.addAll(List.of("-s", script.toString()));
        }
        cmd.add("http://127.0.0.1:" + port + "/");
        if (script != null) {
            cmd.addAll(List.of("--", Integer.toString(depth), String.format(Locale.ROOT, "%.3f", pauseMillis)));
        }
        DebianTool.Output out = DebianTool.run(cmd, seconds + 60L);
        Result r = parse(out.text());
        if (r == null || out.exit() != 0) {
            throw new IOException("wrk failed (exit " + out.exit() + "): " + String.join(" ", cmd) + "\n"
                + out.text().strip());
        }
        return r;
    }

    private static final Pattern TOTAL = Pattern.compile("(\\d+) requests in ([\\d.]+)(us|ms|s|m|h),");
    private static final Pattern PERCENTILE = Pattern.compile(
        "^\\s*(50|90|99)(?:\\.0+)?%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$", Pattern.MULTILINE);
    private static final Pattern MAX = Pattern.compile("^\\s*Latency\\s+\\S+\\s+\\S+\\s+([\\d.]+)(us|ms|s|m|h)",
        Pattern.MULTILINE);
    private static final Pattern SOCKET_ERRORS = Pattern.compile(
        "Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");

    /**
     * @param output what {@code wrk --latency} printed
     * @return the figures, or null if the summary line is missing
     */
    static Result parse(String output) {
        Matcher total = TOTAL.matcher(output);
        if (!total.find()) {
            return null;
        }
        long requests = Long.parseLong(total.group(1));
        double seconds = micros(total.group(2), total.group(3)) / 1e6;
        double p50 = Double.NaN;
        double p90 = Double.NaN;
        double p99 = Double.NaN;
        Matcher m = PERCENTILE.matcher(output);
        while (m.find()) {
            double us = micros(m.group(2), m.group(3));
            if (us == 0) {
                us = Double.NaN; // wrk 4.1 prints 0.00us for the 99th percentile of pipelined runs: unknown
            }
            switch (m.group(1)) {
                case "50" -> p50 = us;
                case "90" -> p90 = us;
                default -> p99 = us;
            }
        }
        Matcher max = MAX.matcher(output);
        double maxUs = max.find() ? micros(max.group(1), max.group(2)) : Double.NaN;
        long errors = 0;
        Matcher se = SOCKET_ERRORS.matcher(output);
        if (se.find()) {
            for (int g = 1; g <= 4; g++) {
                errors += Long.parseLong(se.group(g));
            }
        }
        Matcher n2 = NON_2XX.matcher(output);
        if (n2.find()) {
            errors += Long.parseLong(n2.group(1));
        }
        return new Result(requests, seconds, p50, p90, p99, maxUs, errors);
    }

    private static double micros(String value, String unit) {
        double v = Double.parseDouble(value);
        return switch (unit.toLowerCase(Locale.ROOT)) {
            case "us" -> v;
            case "ms" -> v * 1e3;
            case "s" -> v * 1e6;
            case "m" -> v * 60e6;
            default -> v * 3600e6;
        };
    }
}
