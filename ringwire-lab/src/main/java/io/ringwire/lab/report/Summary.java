package io.ringwire.lab.report;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One experiment's runs boiled down: per server the medians over rounds (rate with its min-max), ratios to
 * {@code netty-epoll}, the terminal table and the one-line verdict.
 *
 * @param workload the workload's name
 * @param variant  its parameters
 * @param rows     one per server, in the order servers first ran
 * @param contaminatedRuns runs during which other processes used more than {@link RunResult#CONTAMINATED_CORES}
 * @param totalRuns every run
 * @param profiledRuns runs whose server a profiler sampled ({@code --profile}): with any, no verdict is given
 */
public record Summary(String workload, String variant, List<Summary.Row> rows, int contaminatedRuns,
                      int totalRuns, int profiledRuns) {
    /** The baseline every ratio is taken against. */
    static final String BASELINE = Competitor.NETTY_EPOLL.label();

    /**
     * Medians of one server's runs (NaN where a figure does not apply); CPU per message also with its min-max, the
     * 95 % bootstrap interval of its ratio to netty-epoll ({@link Stats#ratioInterval}) and every run's value, the
     * rate with every run's value too; {@code limit} says which side was saturated ({@link #limit}).
     */
    public record Row(String server, int runs, double rate, double rateMin, double rateMax, double rateVsEpoll,
                      double offeredRate, double p50Us, double p99Us, double p999Us, double streamsPerSec,
                      double sendLagP99Us, double cpuUsPerMsg, double cpuVsEpoll, double cpuMin, double cpuMax,
                      double cpuVsEpollLow, double cpuVsEpollHigh, double serverUtil, double jitUtil,
                      double loadgenUtil, double peakRssMiB, double nonHeapMiB, double rssOutsideHeapMiB,
                      double heapPeakMiB, double liveHeapMiB,
                      double directPeakMiB, double gcCount,
                      double gcMillis, double allocBytesPerMsg, double voluntaryCtxSwitchesPerKMsg,
                      double involuntaryCtxSwitchesPerKMsg, double minorFaultsPerKMsg, double majorFaultsPerKMsg,
                      double cpuMigrationsPerKMsg, double sqesPerEnter, double iovecsPerWrite,
                      double bytesPerRecv,
                      long mismatches, long errors, long starved, List<Double> cpuRuns, List<Double> rateRuns,
                      String limit) {
        /** @return whether every run was clean */
        public boolean clean() {
            return mismatches == 0 && errors == 0;
        }
    }

    /**
     * @param runs every run of the lab, any workloads
     * @return one summary per (workload, variant), in the order they ran
     */
    public static List<Summary> of(List<RunResult> runs) {
        Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        for (RunResult r : runs) {
            groups.computeIfAbsent(r.workload() + "\u0000" + r.variant(), k -> new ArrayList<>()).add(r);
        }
        List<Summary> out = new ArrayList<>();
        for (List<RunResult> g : groups.values()) {
            out.add(summarise(g));
        }
        return out;
    }

    private static Summary summarise(List<RunResult> runs) {
        Map<String, List<RunResult>> by = new LinkedHashMap<>();
        for (RunResult r : runs) {
            by.computeIfAbsent(r.server(), k -> new ArrayList<>()).add(r);
        }
        List<RunResult> base = by.get(baseline(by.keySet()));
        double baseRate = base == null ? Double.NaN : median(base, RunResult::rate);
        double baseCpu = base == null ? Double.NaN : median(base, RunResult::serverCpuUsPerMsg);
        List<Double> baseCpuRuns = base == null ? List.of() : values(base, RunResult::serverCpuUsPerMsg);
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, List<RunResult>> e : by.entrySet()) {
            List<RunResult> rs = e.getValue();
            double rate = median(rs, RunResult::rate);
            double[] range = Stats.range(rs.stream().map(RunResult::rate).toList());
            double cpu = median(rs, RunResult::serverCpuUsPerMsg);
            List<Double> cpuRuns = values(rs, RunResult::serverCpuUsPerMsg);
            double[] cpuRange = cpuRuns.isEmpty() ? new double[] {Double.NaN, Double.NaN} : Stats.range(cpuRuns);
            double[] cpuRatio = Stats.ratioInterval(cpuRuns, baseCpuRuns);
            rows.add(new Row(e.getKey(), rs.size(), rate, range[0], range[1], Stats.ratio(rate, baseRate),
                median(rs, RunResult::offeredRate), median(rs, RunResult::p50Us), median(rs, RunResult::p99Us),
                median(rs, RunResult::p999Us), median(rs, RunResult::streamsPerSec),
                median(rs, RunResult::sendLagP99Us), cpu, Stats.ratio(cpu, baseCpu), cpuRange[0], cpuRange[1],
                cpuRatio[0], cpuRatio[1],
                median(rs, RunResult::serverUtil), median(rs, RunResult::jitUtil), median(rs, RunResult::loadgenUtil),
                median(rs, RunResult::peakRssMiB), median(rs, RunResult::nonHeapMiB),
                median(rs, RunResult::rssOutsideHeapMiB), median(rs, RunResult::heapPeakMiB),
                median(rs, RunResult::liveHeapMiB),
                median(rs, RunResult::directPeakMiB), median(rs, RunResult::gcCount),
                median(rs, RunResult::gcMillis), median(rs, RunResult::allocBytesPerMsg),
                median(rs, RunResult::voluntaryCtxSwitchesPerKMsg),
                median(rs, RunResult::involuntaryCtxSwitchesPerKMsg),
                median(rs, RunResult::minorFaultsPerKMsg), median(rs, RunResult::majorFaultsPerKMsg),
                median(rs, RunResult::cpuMigrationsPerKMsg), median(rs, RunResult::sqesPerEnter),
                median(rs, RunResult::iovecsPerWrite), median(rs, RunResult::bytesPerRecv),
                rs.stream().mapToLong(RunResult::mismatches).sum(), rs.stream().mapToLong(RunResult::errors).sum(),
                rs.stream().mapToLong(RunResult::starved).sum(), cpuRuns, values(rs, RunResult::rate),
                limit(median(rs, RunResult::serverUtil) + median(rs, RunResult::jitUtil),
                    median(rs, RunResult::loadgenUtil), !Double.isNaN(median(rs, RunResult::offeredRate)))));
        }
        return new Summary(runs.get(0).workload(), runs.get(0).variant(), rows,
            (int) runs.stream().filter(RunResult::contaminated).count(), runs.size(),
            (int) runs.stream().filter(RunResult::profiled).count());
    }

    /**
     * @param servers the labels of an experiment's runs
     * @return whom the ×epoll ratios are taken against: netty-epoll, or for the redis-client workload's clients Lettuce
     *         on Netty epoll
     */
    static String baseline(java.util.Collection<String> servers) {
        String lettuce = Competitor.LETTUCE_EPOLL.label();
        return !servers.contains(BASELINE) && servers.contains(lettuce) ? lettuce : BASELINE;
    }

    /** @return "client" where every run was a client's (redis-client), else "server": whose CPU was measured */
    String measured() {
        return !rows.isEmpty() && rows.stream().allMatch(r -> Competitor.client(r.server())) ? "client" : "server";
    }

    /** Open loop: a generator whose p99 lateness (median over runs) exceeds this did not keep its schedule. */
    static final double LATE_US = 1000;

    /**
     * A server whose dearest run spent more than this many times its cheapest run's CPU per message ran in two modes
     * (single-stream: Netty's native transports now and then fall into a mode 20-30 × dearer), which no noise on these
     * machines explains (±20 % typically; 2 × between the extremes of six runs has been seen): its median, and every
     * ratio taken with it, say little until more rounds are run.
     */
    static final double MODES_RATIO = 3.0;

    /** A side using at least this much of its core is taken as saturated. */
    static final double SATURATED_CORES = 0.9;

    /**
     * Which side set the pace: "server" or "generator" (that side used ≥ {@value #SATURATED_CORES} of its core),
     * "both", "neither" (latency-bound: each waited on the other), or "fixed load" (open loop, neither saturated:
     * the intended case).
     *
     * @param serverCores    the server's CPU over the window, JIT compilers included, in cores
     * @param generatorCores the load generator's, in cores (NaN: not known)
     * @param openLoop       whether the load was offered at a fixed rate
     */
    static String limit(double serverCores, double generatorCores, boolean openLoop) {
        boolean server = serverCores >= SATURATED_CORES;
        boolean generator = generatorCores >= SATURATED_CORES;
        if (server && generator) {
            return "both";
        }
        if (server) {
            return "server";
        }
        if (generator) {
            return "generator";
        }
        if (Double.isNaN(generatorCores)) {
            return openLoop ? "fixed load" : "?";
        }
        return openLoop ? "fixed load" : "neither";
    }

    /** @return the figure of every run that has it */
    static List<Double> values(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).filter(x -> !Double.isNaN(x)).boxed().toList();
    }

    /** Median over the runs that have the figure; NaN if none has it. */
    static double median(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        List<Double> v = values(runs, f);
        return v.isEmpty() ? Double.NaN : Stats.median(v);
    }

    /** @return whether the load was open loop (a fixed offered rate) */
    public boolean openLoop() {
        return rows.stream().anyMatch(r -> !Double.isNaN(r.offeredRate()));
    }

    /** @return the row of one server, or null */
    public Row row(String server) {
        return rows.stream().filter(r -> r.server().equals(server)).findFirst().orElse(null);
    }

    /** @return mismatched bytes and errors over every run of every server */
    public long bad() {
        return rows.stream().mapToLong(r -> r.mismatches() + r.errors()).sum();
    }

    /**
     * @param limit a {@link #limit} value, e.g. "generator"
     * @return the servers whose runs were limited so (the table's limit column)
     */
    public List<String> limitedBy(String limit) {
        return rows.stream().filter(r -> r.limit().equals(limit)).map(Row::server).toList();
    }

    /**
     * How far a server's median rate may stray from the offered one, as a fraction of it, and still count as having
     * carried the offered load. Beyond it the generator fell behind and caught up (above) or never kept up (below):
     * CPU per message was measured at another load than the other servers', and a ratio with them judges nothing.
     */
    public static final double OFF_LOAD = 0.10;

    /** @return open loop: the servers whose median rate is more than {@link #OFF_LOAD} off the offered rate */
    public List<String> offLoad() {
        return rows.stream().filter(Summary::offLoad).map(Row::server).toList();
    }

    /** @return whether {@code r} ran at a fixed load and its median rate strayed from it by over {@link #OFF_LOAD} */
    static boolean offLoad(Row r) {
        return !Double.isNaN(r.offeredRate()) && r.offeredRate() > 0
            && Math.abs(r.rate() / r.offeredRate() - 1) > OFF_LOAD;
    }

    /** @return open loop: the servers the generator fell behind against (p99 late by > {@value #LATE_US} µs) */
    public List<String> lateAgainst() {
        return rows.stream().filter(r -> r.sendLagP99Us() > LATE_US).map(Row::server).toList();
    }

    /** @return the servers whose dearest run spent more than {@link #MODES_RATIO} × their cheapest's CPU/msg */
    public List<Row> twoModes() {
        return rows.stream().filter(r -> r.cpuRuns().size() >= 2 && r.cpuMax() > MODES_RATIO * r.cpuMin()).toList();
    }

    /** @return the servers that starved a connection in some run */
    public List<Row> starving() {
        return rows.stream().filter(r -> r.starved() > 0).toList();
    }

    /**
     * The table the terminal shows by default: the columns a reader needs first, within 120 columns; {@link #table}
     * (--wide), results.json and report.html have every figure.
     *
     * @return a title line, a header, one line per server
     */
    public String compactTable() {
        StringBuilder b = new StringBuilder();
        b.append("== ").append(workload).append(" · ").append(variant).append(" ==\n");
        String format = "%-17s %10s %6s %9s %9s %10s %11s %6s %-10s %4s%n";
        b.append(String.format(Locale.ROOT, format, "server", openLoop() ? "answers/s" : "msgs/s", "×epoll",
            "p50 µs", "p99 µs", "CPU µs/msg", "CPU min-max", "×epoll", "limit", "bad"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, format, r.server(), number("%,.0f", r.rate()),
                ratio(r.rateVsEpoll()), number("%,.0f", r.p50Us()), number("%,.0f", r.p99Us()),
                number("%.2f", r.cpuUsPerMsg()), Double.isNaN(r.cpuMin()) ? "-"
                    : String.format(Locale.ROOT, "%.2f-%.2f", r.cpuMin(), r.cpuMax()),
                ratio(r.cpuVsEpoll()), r.limit(), r.mismatches() + r.errors()));
        }
        return b.toString();
    }

    /** @return {@code v} formatted, or "-" when it is NaN (a figure that does not apply) */
    public static String number(String format, double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    /** @return the table as text: a title line, a header, one line per server, every column (--wide) */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("== ").append(workload).append(" · ").append(variant).append(" ==\n");
        b.append(String.format(Locale.ROOT,
            "%-18s %4s %11s %13s %6s %8s %8s %8s %6s %5s %5s %5s %-10s %6s %6s %6s %6s %5s %5s %6s %5s %4s %6s%n",
            "server", "runs", openLoop() ? "answers/s" : "msgs/s", "min-max", "×ep", "p50 µs", "p99 µs",
            "CPU µs/m", "×ep", "srv", "jit", "lg", "limit", "RSS", "RSS-h", "native", "heap", "live", "GCs", "B/msg",
            "n", "bad", "starved"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT,
                "%-18s %4d %,11.0f %13s %6s %,8.0f %,8.0f %8.2f %6s %5.2f %5.2f %5s %-10s %6.0f %6.0f %6.0f %6.0f "
                    + "%5.0f %5.0f %6.0f %5s %4d %6d%n",
                r.server(), r.runs(), r.rate(), compact(r.rateMin()) + "-" + compact(r.rateMax()),
                ratio(r.rateVsEpoll()),
                r.p50Us(), r.p99Us(), r.cpuUsPerMsg(), ratio(r.cpuVsEpoll()), r.serverUtil(), r.jitUtil(),
                Double.isNaN(r.loadgenUtil()) ? "-" : String.format(Locale.ROOT, "%.2f", r.loadgenUtil()), r.limit(),
                r.peakRssMiB(), r.rssOutsideHeapMiB(), r.nonHeapMiB(), r.heapPeakMiB(), r.liveHeapMiB(), r.gcCount(),
                r.allocBytesPerMsg(),
                Double.isNaN(r.sqesPerEnter()) ? "-" : String.format(Locale.ROOT, "%.1f", r.sqesPerEnter()),
                r.mismatches() + r.errors(), r.starved()));
        }
        String counters = softwareCounters();
        if (!counters.isEmpty()) {
            b.append(counters).append('\n');
        }
        return b.toString();
    }

    /**
     * @return one line: each server's software counters per 1,000 messages (medians), as perf stat would count them;
     *         empty where no run has them
     */
    String softwareCounters() {
        List<String> servers = new ArrayList<>();
        for (Row r : rows) {
            double[] v = {r.voluntaryCtxSwitchesPerKMsg(), r.involuntaryCtxSwitchesPerKMsg(), r.minorFaultsPerKMsg(),
                r.majorFaultsPerKMsg(), r.cpuMigrationsPerKMsg()};
            if (java.util.Arrays.stream(v).allMatch(Double::isNaN)) {
                continue;
            }
            servers.add(String.format(Locale.ROOT, "%s %s/%s, %s/%s, %s", r.server(), Html.pretty(v[0]),
                Html.pretty(v[1]), Html.pretty(v[2]), Html.pretty(v[3]), Html.pretty(v[4])));
        }
        return servers.isEmpty() ? "" : "per 1,000 msgs, context switches voluntary/involuntary, page faults "
            + "minor/major, CPU migrations: " + String.join("; ", servers);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    public static String compact(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        return v >= 1e4 ? String.format(Locale.ROOT, "%.0fk", v / 1e3) : String.format(Locale.ROOT, "%.0f", v);
    }

    /**
     * @param a one server
     * @param b another
     * @return "a 0.92× b's CPU/msg (95 % interval 0.85-1.01): no measurable difference", or which is lower
     */
    static String compareCpu(Row a, Row b) {
        Stats.Comparison c = Stats.Comparison.of(a.cpuRuns(), b.cpuRuns());
        if (Double.isNaN(c.ratio())) {
            return a.server() + " vs " + b.server() + ": no CPU figure";
        }
        String judged = offLoad(a) || offLoad(b) ? "not the same load: "
            + (offLoad(a) ? a : b).server() + " strayed from the offered rate, no verdict" : switch (c.difference()) {
            case CANNOT_TELL -> "one run on a side: cannot tell";
            case NONE -> "runs overlap: no measurable difference";
            case LOWER -> a.server() + " measurably lower";
            case HIGHER -> a.server() + " measurably higher";
        };
        return String.format(Locale.ROOT, "%s %.2f× %s's CPU/msg (95 %% interval %.2f-%.2f, %s)", a.server(),
            c.ratio(), b.server(), c.low(), c.high(), judged);
    }

    private static String memory(String what, Row rw, Row epoll, ToDoubleFunction<Row> f) {
        return String.format(Locale.ROOT, "%s ringwire %.0f MiB", what, f.applyAsDouble(rw))
            + (epoll == null ? "" : String.format(Locale.ROOT, " vs netty-epoll %.0f MiB", f.applyAsDouble(epoll)));
    }

    /** @return whether a profiler sampled the server (or client) of any run: then the figures enter no verdict */
    public boolean profiled() {
        return profiledRuns > 0;
    }

    /** The words that stand for a verdict where the runs were profiled. */
    static final String PROFILED = "profiled: no verdict";

    /**
     * @return one sentence: who spent least, how Ringwire compares with epoll, and anything that went wrong; for
     *         profiled runs only that they were, and any failure
     */
    public String verdict() {
        StringBuilder b = new StringBuilder(workload).append(" (").append(variant).append("): ");
        long bad = bad();
        if (profiled()) {
            b.append(String.format(Locale.ROOT, "PROFILED (%d of %d runs): async-profiler sampled every %s in its "
                + "window, so the figures carry its cost and enter no verdict; rerun without --profile to compare",
                profiledRuns, totalRuns, measured()));
            if (bad > 0) {
                b.append("; FAILED: ").append(bad).append(" mismatched bytes or errors");
            }
            return b.toString();
        }
        Row best = rows.stream().filter(r -> !Double.isNaN(r.cpuUsPerMsg()) && !offLoad(r))
            .min((x, y) -> Double.compare(x.cpuUsPerMsg(), y.cpuUsPerMsg())).orElse(null);
        if (best == null) {
            return b.append("no measurement").toString();
        }
        Row rw = row(Competitor.RINGWIRE.label());
        Row nu = row(Competitor.NETTY_IO_URING.label());
        if (openLoop()) {
            b.append(String.format(Locale.ROOT, "at %s msgs/s offered, %s spends the least %s CPU (%.2f µs/msg, "
                + "%.2f cores)", compact(best.offeredRate()), best.server(), measured(), best.cpuUsPerMsg(),
                best.serverUtil()));
            double lag = rows.stream().mapToDouble(Row::sendLagP99Us).filter(x -> !Double.isNaN(x)).max()
                .orElse(Double.NaN);
            if (!Double.isNaN(lag)) {
                List<String> late = lateAgainst();
                b.append(String.format(Locale.ROOT, "; the generator kept its schedule within %,.0f µs (p99 lateness, "
                    + "worst server)%s", lag, late.isEmpty() ? "" : ": it fell behind against "
                    + String.join(", ", late) + ", so their load was not quite the same as the others'"));
            }
        } else {
            b.append(String.format(Locale.ROOT, "%s spends the least %s CPU per message (%.2f µs)", best.server(),
                measured(), best.cpuUsPerMsg()));
        }
        if (rw != null) {
            for (Row other : new Row[] {row(BASELINE), nu}) {
                if (other != null && other != rw) {
                    b.append("; ").append(compareCpu(rw, other));
                }
            }
            if (!Double.isNaN(rw.rateVsEpoll())) {
                b.append(String.format(Locale.ROOT, "; ringwire's rate %.2f× netty-epoll's", rw.rateVsEpoll()));
            }
        }
        Row mw = row(Competitor.RINGWIRE_MIN_WAIT.label());
        Row epoll = row(BASELINE);
        if (mw != null && epoll != null) { // the minimum wait's trade: CPU against median latency
            b.append("; ").append(compareCpu(mw, epoll));
            if (rw != null && !Double.isNaN(mw.p50Us()) && !Double.isNaN(rw.p50Us())) {
                b.append(String.format(Locale.ROOT, ", at a median latency of %.0f µs against ringwire's %.0f",
                    mw.p50Us(), rw.p50Us()));
            }
        }
        Row vrw = row(Competitor.VERTX_RINGWIRE.label());
        if (vrw != null) { // Vert.x on Ringwire against Vert.x on its own transports
            for (Competitor c : new Competitor[] {Competitor.VERTX_EPOLL, Competitor.VERTX_IO_URING}) {
                Row other = row(c.label());
                if (other != null) {
                    b.append("; ").append(compareCpu(vrw, other));
                }
            }
        }
        Row lrw = row(Competitor.LETTUCE_RINGWIRE.label());
        if (lrw != null) { // Lettuce on Ringwire against Lettuce on its own transports
            for (Competitor c : new Competitor[] {Competitor.LETTUCE_EPOLL, Competitor.LETTUCE_IO_URING}) {
                Row other = row(c.label());
                if (other != null) {
                    b.append("; ").append(compareCpu(lrw, other));
                }
            }
            if (!Double.isNaN(lrw.rateVsEpoll())) {
                b.append(String.format(Locale.ROOT, "; lettuce-ringwire's rate %.2f× lettuce-epoll's",
                    lrw.rateVsEpoll()));
            }
        }
        // the memory that grew with the stream in the RSocket evaluation
        if (workload.equals("single-stream") && rw != null) {
            Row ep = row(BASELINE);
            b.append("; ").append(memory("heap kept under load (after a full collection at the window's end)", rw, ep,
                    Row::liveHeapMiB))
                .append(", ").append(memory("pooled direct memory at its peak", rw, ep, Row::directPeakMiB))
                .append(", ").append(memory("heap peak garbage included", rw, ep, Row::heapPeakMiB))
                .append(" (the last grows with what was allocated between collections, so with the rate)");
        }
        List<String> generatorBound = limitedBy("generator");
        if (!openLoop() && !generatorBound.isEmpty()) {
            b.append(measured().equals("client") ? "; redis-server used ≥ 0.9 of its core against "
                : "; the load generator used ≥ 0.9 of its core against ").append(String.join(", ", generatorBound))
                .append(", so those rates are partly its limit");
        }
        List<String> bothBound = limitedBy("both");
        if (!openLoop() && !bothBound.isEmpty()) {
            // a loop that always finds work takes smaller batches rather than sleeping: it spends its core whatever
            // the rate, so its CPU per message is its core over the rate the pair reached (docs/benchmarks.md,
            // docs/benchmarks.md, "How the lab measures": one build's runs 3.33-4.07 µs, each its core over that run's rate)
            b.append("; both sides used ≥ 0.9 of their cores against ").append(String.join(", ", bothBound))
                .append(": the rate is the pair's, and a server that never sleeps spends its core whatever the rate, "
                    + "so its CPU per message there is its core over the rate the generator kept up with it; a fixed "
                    + "rate (" + (workload.equals("http") ? "http" : "echo") + " --rate) compares the servers' own "
                    + "cost");
        }
        List<String> notSaturated = limitedBy("neither");
        if (!openLoop() && !notSaturated.isEmpty()) {
            b.append("; neither side saturated for ").append(String.join(", ", notSaturated))
                .append(" (each waited on the other: per-wake-up costs weigh more there)");
        }
        if (contaminatedRuns > 0) {
            b.append(String.format(Locale.ROOT, "; %d of %d runs had other processes using > %.1f cores of the "
                + "machine during the window: rerun on a quiet machine before trusting them", contaminatedRuns,
                totalRuns, RunResult.CONTAMINATED_CORES));
        }
        for (Row r : twoModes()) {
            b.append(String.format(Locale.ROOT, "; %s's runs differ %.0f× in CPU per message (%.2f-%.2f µs): "
                + "it ran in two modes, so its median and every ratio taken with it say little; more rounds tell "
                + "how often each mode comes", r.server(), r.cpuMax() / r.cpuMin(), r.cpuMin(), r.cpuMax()));
        }
        for (Row r : starving()) {
            b.append(String.format(Locale.ROOT, "; %s starved %d connection%s: a message waited through a whole "
                + "window and was answered only after it (within %d s; those waits are in its latency figures)",
                r.server(), r.starved(), r.starved() == 1 ? "" : "s", LoadGenerator.STARVED_GRACE_SECONDS));
        }
        if (bad > 0) {
            b.append("; FAILED: ").append(bad).append(" mismatched bytes or errors");
        }
        return b.toString();
    }
}
