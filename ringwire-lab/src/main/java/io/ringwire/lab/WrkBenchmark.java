package io.ringwire.lab;

import java.io.IOException;
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
 * pipeline depth above 1, each write carries that many requests (wrk's own pipelining script, written to a temporary
 * file). Runs of one second fill the warm-up, then one run lasts the window.
 */
final class WrkBenchmark {
    private WrkBenchmark() { }

    /**
     * @param note receives what was done or why the workload cannot run
     * @return wrk's path (installed as root if missing), or null: skip the workload
     */
    static String locate(Consumer<String> note) {
        return DebianTool.locate("http", "wrk", "wrk", note);
    }

    /** wrk's pipelining example: {@code depth} GETs per write; the depth comes after {@code --}. */
    private static final String PIPELINE_SCRIPT = """
        init = function(args)
          local depth = tonumber(args[1]) or 1
          local r = {}
          for i = 1, depth do r[i] = wrk.format(nil, "/") end
          req = table.concat(r)
        end
        request = function() return req end
        """;

    /**
     * @param program     wrk's path
     * @param connections keep-alive connections
     * @param depth       requests per write (1: no pipelining)
     * @param settings    warm-up and window lengths
     * @return a driver for {@link Experiment}
     */
    static Experiment.Driver driver(String program, int connections, int depth, Experiment.Settings settings) {
        return (target, warmup, edge) -> {
            Path script = null;
            try {
                if (depth > 1) {
                    script = Files.createTempFile("ringwire-wrk-pipeline", ".lua");
                    Files.writeString(script, PIPELINE_SCRIPT);
                }
                do {
                    run(program, target.getPort(), connections, depth, script, 1);
                } while (!warmup.over());
                int seconds = (int) Math.max(1, Math.round(settings.seconds()));
                edge.run();
                Result r = run(program, target.getPort(), connections, depth, script, seconds);
                edge.run();
                return new Measurement(r.requests, r.requests, 0, r.seconds, r.p50Us, r.p90Us, r.p99Us, Double.NaN,
                    r.maxUs, Double.NaN, Double.NaN, 0, r.errors, 0, Double.NaN);
            } finally {
                if (script != null) {
                    Files.deleteIfExists(script);
                }
            }
        };
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

    private static Result run(String program, int port, int connections, int depth, Path script, int seconds)
        throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program, "-t1", "-c" + connections, "-d" + seconds + "s",
            "--timeout", "10s", "--latency"));
        if (script != null) {
            cmd.addAll(List.of("-s", script.toString()));
        }
        cmd.add("http://127.0.0.1:" + port + "/");
        if (script != null) {
            cmd.addAll(List.of("--", Integer.toString(depth)));
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
