package io.ringwire.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Per-server medians over the rounds, ratios to netty-epoll, the terminal table, the one-line verdict and
 * {@code results.json}.
 */
public final class Summary {
    /** Medians of one server's runs. */
    public record Row(String server, int runs, double rps, double rpsMin, double rpsMax, double rpsVsEpoll,
                      double p50Us, double p99Us, double cpuUsPerRt, double cpuVsEpoll, double serverUtil,
                      double loadgenUtil, double peakRssMiB, long mismatches, long errors) { }

    static final String BASELINE = Competitor.NETTY_EPOLL.label();

    private final List<Row> rows;

    private Summary(List<Row> rows) {
        this.rows = rows;
    }

    /**
     * @param runs every run of one experiment
     * @return medians per server, in the order servers first appear
     */
    public static Summary of(List<RunResult> runs) {
        Map<String, List<RunResult>> by = new LinkedHashMap<>();
        for (RunResult r : runs) {
            by.computeIfAbsent(r.server(), k -> new ArrayList<>()).add(r);
        }
        List<RunResult> base = by.get(BASELINE);
        double baseRps = base == null ? Double.NaN : Stats.median(base.stream().map(RunResult::rps).toList());
        double baseCpu = base == null ? Double.NaN
            : Stats.median(base.stream().map(RunResult::serverCpuUsPerRt).toList());
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, List<RunResult>> e : by.entrySet()) {
            List<RunResult> rs = e.getValue();
            List<Double> rps = rs.stream().map(RunResult::rps).toList();
            double[] range = Stats.range(rps);
            double medRps = Stats.median(rps);
            double cpu = Stats.median(rs.stream().map(RunResult::serverCpuUsPerRt).toList());
            rows.add(new Row(e.getKey(), rs.size(), medRps, range[0], range[1], Stats.ratio(medRps, baseRps),
                Stats.median(rs.stream().map(RunResult::p50Us).toList()),
                Stats.median(rs.stream().map(RunResult::p99Us).toList()), cpu, Stats.ratio(cpu, baseCpu),
                Stats.median(rs.stream().map(RunResult::serverUtil).toList()),
                Stats.median(rs.stream().map(RunResult::loadgenUtil).toList()),
                Stats.median(rs.stream().map(RunResult::peakRssMiB).toList()),
                rs.stream().mapToLong(RunResult::mismatches).sum(), rs.stream().mapToLong(RunResult::errors).sum()));
        }
        return new Summary(rows);
    }

    /** @return one row per server */
    public List<Row> rows() {
        return rows;
    }

    /** @return the table as text, one line per server */
    public String table() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
            "%-18s %4s %12s %7s %9s %9s %10s %8s %7s %7s %8s %6s%n", "server", "runs", "rps", "×epoll", "p50 µs",
            "p99 µs", "CPU µs/RT", "CPU×ep", "srv cpu", "lg cpu", "RSS MiB", "bad"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-18s %4d %,12.0f %7.2f %,9.0f %,9.0f %10.2f %8.2f %7.2f %7.2f %8.0f %6d%n",
                r.server(), r.runs(), r.rps(), r.rpsVsEpoll(), r.p50Us(), r.p99Us(), r.cpuUsPerRt(), r.cpuVsEpoll(),
                r.serverUtil(), r.loadgenUtil(), r.peakRssMiB(), r.mismatches() + r.errors()));
        }
        return b.toString();
    }

    /** @return one sentence: who used the least CPU per round trip, and how Ringwire compares to epoll */
    public String verdict() {
        Row best = rows.stream().filter(r -> !Double.isNaN(r.cpuUsPerRt()))
            .min((a, c) -> Double.compare(a.cpuUsPerRt(), c.cpuUsPerRt())).orElse(null);
        if (best == null) {
            return "verdict: no measurement";
        }
        long bad = rows.stream().mapToLong(r -> r.mismatches() + r.errors()).sum();
        Row ringwire = rows.stream().filter(r -> r.server().equals(Competitor.RINGWIRE.label())).findFirst()
            .orElse(null);
        String rw = ringwire == null || Double.isNaN(ringwire.cpuVsEpoll()) ? ""
            : String.format(Locale.ROOT, "; ringwire needs %.2f× netty-epoll's CPU per round trip at %.2f× its rate",
                ringwire.cpuVsEpoll(), ringwire.rpsVsEpoll());
        return String.format(Locale.ROOT, "verdict: %s spends the least server CPU per round trip (%.2f µs)%s%s",
            best.server(), best.cpuUsPerRt(), rw, bad > 0 ? "; WARNING: " + bad + " mismatches/errors" : "");
    }

    /**
     * @param workload a name, e.g. {@code "echo"}
     * @param settings what ran
     * @param runs     every run
     * @return results.json's text
     */
    public String json(String workload, EchoExperiment.Settings settings, List<RunResult> runs) {
        StringBuilder b = new StringBuilder("{\n");
        b.append(String.format(Locale.ROOT, "  \"workload\": \"%s\",\n  \"conns\": %d, \"size\": %d, \"depth\": %d, "
            + "\"rounds\": %d, \"seconds\": %s, \"warmupSeconds\": %s, \"threads\": %d,%n", workload, settings.conns(),
            settings.size(), settings.depth(), settings.rounds(), num(settings.seconds()),
            num(settings.warmupSeconds()), settings.threads()));
        b.append("  \"runs\": [\n");
        for (int i = 0; i < runs.size(); i++) {
            RunResult r = runs.get(i);
            b.append(String.format(Locale.ROOT, "    {\"server\": \"%s\", \"round\": %d, \"rps\": %s, \"p50Us\": %s, "
                + "\"p99Us\": %s, \"p999Us\": %s, \"serverCpuUsPerRt\": %s, \"serverUtil\": %s, \"loadgenUtil\": %s, "
                + "\"peakRssMiB\": %s, \"mismatches\": %d, \"errors\": %d}%s%n", r.server(), r.round(), num(r.rps()),
                num(r.p50Us()), num(r.p99Us()), num(r.p999Us()), num(r.serverCpuUsPerRt()), num(r.serverUtil()),
                num(r.loadgenUtil()), num(r.peakRssMiB()), r.mismatches(), r.errors(), i + 1 < runs.size() ? "," : ""));
        }
        b.append("  ],\n  \"summary\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            b.append(String.format(Locale.ROOT, "    {\"server\": \"%s\", \"runs\": %d, \"rps\": %s, \"rpsVsEpoll\": %s, "
                + "\"cpuUsPerRt\": %s, \"cpuVsEpoll\": %s, \"p99Us\": %s, \"peakRssMiB\": %s}%s%n", r.server(), r.runs(),
                num(r.rps()), num(r.rpsVsEpoll()), num(r.cpuUsPerRt()), num(r.cpuVsEpoll()), num(r.p99Us()),
                num(r.peakRssMiB()), i + 1 < rows.size() ? "," : ""));
        }
        b.append("  ],\n  \"verdict\": \"").append(verdict().replace("\"", "'")).append("\"\n}\n");
        return b.toString();
    }

    private static String num(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.4f", v);
    }
}
