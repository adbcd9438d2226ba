package io.ringwire.lab.cli;

import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.report.Charts;
import io.ringwire.lab.report.Html;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.results.RunResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code ./ringwire lab sweep}: echo at a fixed offered load, from a trickle to well below saturation, over a few
 * connection counts, on every Java server on a Netty transport and the C reference servers. At a low load every
 * message costs a server a wake-up; what a wake-up costs each transport (its system calls and context switches) is
 * what decides CPU per message there, and the C servers show the floor. Per point and server: CPU per message, p50
 * and p99, and per message the context switches of the server's threads (voluntary ones are the waits for work,
 * each followed by a wake-up), and where the server counts them, its system calls (the C servers: every call of their
 * loop; Ringwire: its io_uring_enter calls) and its loop's waits for completions or events (one io_uring_enter or
 * epoll_wait each). Netty's transports count no system calls, and perf cannot attach to a process on every host (on
 * the lab's VM it counts nothing for one), so they are left out for those.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class, sortOptions = false,
    description = {"Echo at a fixed offered load (open loop, primed first) at each rate of --rates over each "
        + "connection count of --conns, on ringwire, netty-io_uring, netty-epoll, netty-nio and the C reference "
        + "servers c-io_uring and c-epoll (unless --servers). Per point: server CPU per message against offered load, "
        + "one chart per connection count in report.html, p50 and p99 beside it, and per message the context "
        + "switches (voluntary: waits for work, each followed by a wake-up), and the system calls and the loop's "
        + "waits where the server counts them (the C servers, Ringwire).",
        "--seconds is the measured window of every point (and --warmup, --max-warmup its warm-up): --seconds 1 "
            + "--warmup 1 --max-warmup 2 --rounds 1 for a quick look."})
final class Sweep extends Lab.WorkloadCommand {
    @Option(names = "--rates", split = ",", defaultValue = "500,2000,5000,10000,20000,40000", description = "offered "
        + "loads, messages per second over all connections, a list (default: ${DEFAULT-VALUE})")
    List<Double> rates;

    @Option(names = "--conns", split = ",", defaultValue = "50,500", description = "connection counts, a list "
        + "(default: ${DEFAULT-VALUE})")
    List<Integer> conns;

    @Option(names = "--size", defaultValue = "128", description = "bytes per message (default: ${DEFAULT-VALUE})")
    int size;

    /**
     * A point of the sweep.
     *
     * @param conns connections
     * @param rate  offered messages per second over all of them
     */
    record Point(int conns, double rate) { }

    /**
     * @param conns connection counts, in the order given
     * @param rates offered loads
     * @return every (connections, rate) pair: connection counts in the order given (each once), each with every rate
     *         from the lowest up (each once)
     * @throws IllegalArgumentException on an empty list, or a count or rate that is not positive
     */
    static List<Point> plan(List<Integer> conns, List<Double> rates) {
        if (conns.isEmpty() || rates.isEmpty() || conns.stream().anyMatch(c -> c < 1)
            || rates.stream().anyMatch(r -> !(r > 0))) {
            throw new IllegalArgumentException("the sweep needs connection counts ≥ 1 and rates > 0: conns " + conns
                + ", rates " + rates);
        }
        List<Point> plan = new ArrayList<>();
        for (int n : new java.util.LinkedHashSet<>(conns)) {
            for (double r : new TreeSet<>(rates)) {
                plan.add(new Point(n, r));
            }
        }
        return plan;
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Window> windows = new LinkedHashMap<>();
        Map<String, Point> points = new LinkedHashMap<>();
        List<Experiment> experiments = experiments(settings(), points, windows);
        return Lab.execute(spec, common, experiments, new ArrayList<>(), false, new Report(points, windows, size));
    }

    /** @return the servers and timing: without --servers, {@link Competitor#sweep()} */
    Experiment.Settings settings() {
        return common.servers == null ? common.settings(Competitor.sweep()) : common.settings();
    }

    /**
     * @param s       servers and timing
     * @param points  receives each experiment's point, by its variant
     * @param windows receives each experiment's counts, by its variant
     * @return echo at each point of the plan, in its order, counting at every window's edges
     */
    List<Experiment> experiments(Experiment.Settings s, Map<String, Point> points, Map<String, Window> windows) {
        List<Experiment> experiments = new ArrayList<>();
        for (Point p : plan(conns, rates)) {
            Window w = new Window();
            Experiment e = Workloads.echo(s, p.conns(), size, 1, p.rate()).probing(w);
            windows.put(e.variant(), w);
            points.put(e.variant(), p);
            experiments.add(e);
        }
        return experiments;
    }

    /**
     * The counts of one point's windows, by server and round: seconds, voluntary and involuntary context switches
     * (the server's threads, from /proc), and the system calls the server counted itself, where it does.
     */
    static final class Window implements Experiment.WindowProbe {
        private final Map<String, long[]> open = new ConcurrentHashMap<>();
        private final Map<String, double[]> counts = new ConcurrentHashMap<>();

        static String key(String server, int round) {
            return server + "#" + round;
        }

        @Override
        public void edge(Competitor server, int round, long pid, boolean opening, Map<String, Double> stats) {
            long[] cs = ProcessStats.contextSwitches(pid);
            long[] now = {System.nanoTime(), cs[0], cs[1]};
            String key = key(server.label(), round);
            if (opening) {
                open.put(key, now);
                return;
            }
            long[] then = open.get(key);
            if (then == null) {
                return;
            }
            // the C servers count every system call of their loop; Ringwire its io_uring_enter calls, nearly all of
            // its loop's once it runs; the others count none
            double calls = stats.getOrDefault("syscalls", stats.getOrDefault("enters", Double.NaN));
            counts.put(key, new double[] {(now[0] - then[0]) / 1e9,
                then[1] < 0 || now[1] < 0 ? Double.NaN : now[1] - then[1],
                then[2] < 0 || now[2] < 0 ? Double.NaN : now[2] - then[2], calls});
        }

        /** Records a window's counts as {@link #edge} would: {seconds, voluntary, involuntary, system calls}. */
        void put(String server, int round, double[] c) {
            counts.put(key(server, round), c);
        }

        /** @return {seconds, voluntary, involuntary, system calls} of that window, or null */
        double[] counts(String server, int round) {
            return counts.get(key(server, round));
        }
    }

    /**
     * One server at one point: medians over its rounds.
     *
     * @param server       its label
     * @param offered      offered messages/s
     * @param rate         answered messages/s
     * @param cpuUsPerMsg  server CPU per message, µs
     * @param p50Us        median latency, µs
     * @param p99Us        99th percentile, µs
     * @param switchesPerMsg context switches per message, voluntary and involuntary
     * @param wakeupsPerMsg voluntary context switches per message: the waits for work
     * @param callsPerMsg system calls per message, where the server counts them (the C servers: all of their
     *                    loop's; Ringwire: its io_uring_enter calls)
     * @param waitsPerMsg  the loop's waits (io_uring_enter or epoll_wait) per message, where it counts them
     */
    record Row(String server, double offered, double rate, double cpuUsPerMsg, double p50Us, double p99Us,
               double switchesPerMsg, double wakeupsPerMsg, double callsPerMsg, double waitsPerMsg) { }

    /** The sweep's table and charts, from the runs and the windows' counts. */
    static final class Report implements Lab.Addendum {
        private final Map<String, Point> points;
        private final Map<String, Window> windows;
        private final int size;

        Report(Map<String, Point> points, Map<String, Window> windows, int size) {
            this.points = points;
            this.windows = windows;
            this.size = size;
        }

        /** @return rows by connection count, each list by rate, then server in the order they ran */
        Map<Integer, List<Row>> rows(List<RunResult> runs) {
            Map<Integer, List<Row>> out = new LinkedHashMap<>();
            for (Map.Entry<String, Point> e : points.entrySet()) {
                Map<String, List<RunResult>> byServer = new LinkedHashMap<>();
                runs.stream().filter(r -> r.workload().equals("echo") && r.variant().equals(e.getKey()))
                    .forEach(r -> byServer.computeIfAbsent(r.server(), k -> new ArrayList<>()).add(r));
                Window w = windows.get(e.getKey());
                List<Row> rows = out.computeIfAbsent(e.getValue().conns(), k -> new ArrayList<>());
                byServer.forEach((server, list) -> rows.add(row(server, e.getValue().rate(), list, w)));
            }
            return out;
        }

        static Row row(String server, double offered, List<RunResult> runs, Window w) {
            List<Double> cs = new ArrayList<>();
            List<Double> vol = new ArrayList<>();
            List<Double> calls = new ArrayList<>();
            List<Double> waits = new ArrayList<>();
            for (RunResult r : runs) {
                double[] c = w == null ? null : w.counts(server, r.round());
                if (c == null) {
                    continue;
                }
                double messages = r.rate() * c[0];
                cs.add((c[1] + c[2]) / messages);
                vol.add(c[1] / messages);
                calls.add(c[3] / messages);
                waits.add(r.loopIterations() / messages);
            }
            return new Row(server, offered, median(runs.stream().map(RunResult::rate).toList()),
                median(runs.stream().map(RunResult::serverCpuUsPerMsg).toList()),
                median(runs.stream().map(RunResult::p50Us).toList()),
                median(runs.stream().map(RunResult::p99Us).toList()), median(cs), median(vol), median(calls),
                median(waits));
        }

        static double median(List<Double> values) {
            List<Double> v = values.stream().filter(d -> !Double.isNaN(d)).sorted().toList();
            if (v.isEmpty()) {
                return Double.NaN;
            }
            int n = v.size();
            return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
        }

        /** @return the epoll server's CPU per message at the same point, for the ratio column */
        private static double epoll(List<Row> rows, double offered) {
            return rows.stream().filter(r -> r.offered() == offered && r.server().equals("netty-epoll"))
                .mapToDouble(Row::cpuUsPerMsg).findFirst().orElse(Double.NaN);
        }

        @Override
        public String text(List<RunResult> runs) {
            StringBuilder b = new StringBuilder();
            b.append(String.format(Locale.ROOT, "%nsweep: echo %d B at a fixed offered load; medians over rounds. CPU: "
                + "server µs per message (× netty-epoll's); per message: cs = context switches, wake = voluntary ones "
                + "(waits for work), calls = system calls where the server counts them (the C servers: all of their "
                + "loop's; Ringwire: io_uring_enter), waits = its loop's waits for work (io_uring_enter, epoll_wait) "
                + "where it counts them. Netty's calls are not counted: perf cannot count another process's here%n",
                size));
            for (Map.Entry<Integer, List<Row>> e : rows(runs).entrySet()) {
                b.append(String.format(Locale.ROOT, "%n%,d conns%n%9s  %-16s %9s %8s %7s %8s %8s %6s %6s %6s %6s%n",
                    e.getKey(), "offered/s", "server", "reached/s", "CPU µs", "× epoll", "p50 µs", "p99 µs", "cs",
                    "wake", "calls", "waits"));
                for (Row r : e.getValue()) {
                    b.append(String.format(Locale.ROOT, "%9s  %-16s %9s %8s %7s %8s %8s %6s %6s %6s %6s%n",
                        Summary.compact(r.offered()), r.server(), Summary.number("%,.0f", r.rate()),
                        Summary.number("%.2f", r.cpuUsPerMsg()),
                        Summary.number("%.2f", r.cpuUsPerMsg() / epoll(e.getValue(), r.offered())),
                        Summary.number("%,.0f", r.p50Us()), Summary.number("%,.0f", r.p99Us()),
                        Summary.number("%.2f", r.switchesPerMsg()), Summary.number("%.2f", r.wakeupsPerMsg()),
                        Summary.number("%.2f", r.callsPerMsg()), Summary.number("%.2f", r.waitsPerMsg())));
                }
            }
            return b.toString();
        }

        @Override
        public String html(List<RunResult> runs) {
            StringBuilder b = new StringBuilder();
            b.append("<section class=\"workload\" data-workload=\"sweep\">\n<h2>sweep · echo ").append(size)
                .append(" B at a fixed offered load</h2>\n<p class=\"small\">Server CPU per message against the "
                    + "offered load (both axes logarithmic), one chart per connection count; latency beside it (p99 "
                    + "solid, p50 dashed). Medians over rounds. Per message: context switches (voluntary: waits for "
                    + "work, each followed by a wake-up; the server's own threads, from /proc), system calls where the "
                    + "server counts them (the C servers: every call of their loop; Ringwire: its io_uring_enter "
                    + "calls; Netty's transports count none), and the loop's waits for work (io_uring_enter or "
                    + "epoll_wait) where the server counts them.</p>\n");
            for (Map.Entry<Integer, List<Row>> e : rows(runs).entrySet()) {
                List<Row> rows = e.getValue();
                List<String> servers = rows.stream().map(Row::server).distinct().toList();
                List<Double> xs = rows.stream().map(Row::offered).distinct().sorted().toList();
                List<Line> cpu = new ArrayList<>();
                List<Line> latency = new ArrayList<>();
                for (int i = 0; i < servers.size(); i++) {
                    String server = servers.get(i);
                    cpu.add(new Line(server, i, false, values(rows, server, xs, Row::cpuUsPerMsg)));
                    latency.add(new Line(server + " p99", i, false, values(rows, server, xs, Row::p99Us)));
                    latency.add(new Line(server + " p50", i, true, values(rows, server, xs, Row::p50Us)));
                }
                b.append("<h3>").append(String.format(Locale.ROOT, "%,d", e.getKey())).append(" connections</h3>\n")
                    .append("<div style=\"display:flex;flex-wrap:wrap;gap:16px\">")
                    .append(chart("server CPU per message, " + e.getKey() + " conns", "µs", xs, cpu))
                    .append(chart("latency, " + e.getKey() + " conns (p99 solid, p50 dashed)", "µs", xs, latency))
                    .append("</div>\n<table><tr><th>offered/s</th><th>server</th><th>reached/s</th><th>CPU µs/msg</th>"
                        + "<th>× netty-epoll</th><th>p50 µs</th><th>p99 µs</th><th>context switches/msg</th>"
                        + "<th>voluntary/msg</th><th>system calls/msg</th><th>loop waits/msg</th></tr>\n");
                for (Row r : rows) {
                    b.append("<tr><td>").append(Summary.compact(r.offered())).append("</td><td>")
                        .append(Html.escape(r.server())).append("</td><td>").append(Html.pretty(r.rate()))
                        .append("</td><td>").append(Html.pretty(r.cpuUsPerMsg())).append("</td><td>")
                        .append(Html.pretty(r.cpuUsPerMsg() / epoll(rows, r.offered()))).append("</td><td>")
                        .append(Html.pretty(r.p50Us())).append("</td><td>").append(Html.pretty(r.p99Us()))
                        .append("</td><td>").append(Html.pretty(r.switchesPerMsg())).append("</td><td>")
                        .append(Html.pretty(r.wakeupsPerMsg())).append("</td><td>")
                        .append(Html.pretty(r.callsPerMsg())).append("</td><td>")
                        .append(Html.pretty(r.waitsPerMsg())).append("</td></tr>\n");
                }
                b.append("</table>\n");
            }
            return b.append("</section>\n").toString();
        }

        private static double[] values(List<Row> rows, String server, List<Double> xs,
                                       java.util.function.ToDoubleFunction<Row> f) {
            double[] v = new double[xs.size()];
            for (int i = 0; i < v.length; i++) {
                double x = xs.get(i);
                v[i] = rows.stream().filter(r -> r.server().equals(server) && r.offered() == x).mapToDouble(f)
                    .findFirst().orElse(Double.NaN);
            }
            return v;
        }
    }

    /**
     * A line of a chart.
     *
     * @param name   its legend
     * @param colour index into {@link Charts#COLOURS}
     * @param dashed drawn dashed
     * @param values one per x (NaN: a gap)
     */
    record Line(String name, int colour, boolean dashed, double[] values) { }

    private static final int WIDTH = 520;
    private static final int HEIGHT = 300;
    private static final int LEFT = 60;
    private static final int RIGHT = 150;
    private static final int TOP = 28;
    private static final int BOTTOM = 40;

    /**
     * @param title the caption
     * @param unit  the y axis's unit
     * @param xs    the offered loads, ascending
     * @param lines the series
     * @return an inline {@code <svg>}: both axes logarithmic, ticks at 1, 2 and 5 of each decade, a legend at the right
     */
    static String chart(String title, String unit, List<Double> xs, List<Line> lines) {
        double ymin = Double.MAX_VALUE;
        double ymax = 0;
        for (Line l : lines) {
            for (double v : l.values()) {
                if (v > 0) {
                    ymin = Math.min(ymin, v);
                    ymax = Math.max(ymax, v);
                }
            }
        }
        if (ymax == 0) {
            ymin = 1;
            ymax = 10;
        }
        double lo = Math.log10(ymin) - 0.05;
        double hi = Math.log10(ymax) + 0.05;
        if (hi - lo < 0.3) {
            lo -= 0.15;
            hi += 0.15;
        }
        double xlo = Math.log10(xs.get(0));
        double xhi = Math.log10(xs.get(xs.size() - 1));
        if (xhi - xlo < 1e-9) {
            xlo -= 0.5;
            xhi += 0.5;
        }
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        double fxlo = xlo;
        double fxhi = xhi;
        double flo = lo;
        double fhi = hi;
        java.util.function.DoubleUnaryOperator px = x -> LEFT + (Math.log10(x) - fxlo) / (fxhi - fxlo) * plotW;
        java.util.function.DoubleUnaryOperator py = y -> TOP + plotH - (Math.log10(y) - flo) / (fhi - flo) * plotH;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            + "font-family=\"sans-serif\" font-size=\"11\" role=\"img\"><title>%s</title>", WIDTH, HEIGHT,
            Html.escape(title)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">%s</text>", LEFT,
            Html.escape(title)));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            + "stroke=\"#ced4da\"/>", LEFT, TOP, plotW, plotH));
        for (int decade = (int) Math.floor(lo); decade <= (int) Math.ceil(hi); decade++) {
            for (int m : new int[] {1, 2, 5}) {
                double v = m * Math.pow(10, decade);
                double l = Math.log10(v);
                if (l < lo || l > hi) {
                    continue;
                }
                double y = py.applyAsDouble(v);
                b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
                    + "stroke=\"#eef0f2\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", LEFT,
                    LEFT + plotW, y, y, LEFT - 4, y + 4, Summary.compact(v)));
            }
        }
        for (double x : xs) {
            double X = px.applyAsDouble(x);
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eef0f2\"/>"
                + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", X, X, TOP, TOP + plotH, X,
                TOP + plotH + 14, Summary.compact(x)));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">offered messages/s</text>"
            + "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>",
            LEFT + plotW / 2, HEIGHT - 8, TOP + plotH / 2, TOP + plotH / 2, Html.escape(unit)));
        int legend = 0;
        for (Line l : lines) {
            String colour = Charts.COLOURS[l.colour() % Charts.COLOURS.length];
            StringBuilder path = new StringBuilder();
            for (int i = 0; i < xs.size() && i < l.values().length; i++) {
                double v = l.values()[i];
                if (!(v > 0)) {
                    continue;
                }
                double X = px.applyAsDouble(xs.get(i));
                double Y = py.applyAsDouble(v);
                path.append(path.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", X, Y));
                b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>"
                    + "%s at %s/s: %s %s</title></circle>", X, Y, colour, Html.escape(l.name()),
                    Summary.compact(xs.get(i)), Html.pretty(v), Html.escape(unit)));
            }
            if (!path.isEmpty()) {
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s/>",
                    path, colour, l.dashed() ? " stroke-dasharray=\"4 3\"" : ""));
            }
            int ly = TOP + 6 + legend++ * 14;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
                + "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>", WIDTH - RIGHT + 10, WIDTH - RIGHT + 28,
                ly, ly, colour, l.dashed() ? " stroke-dasharray=\"4 3\"" : "", WIDTH - RIGHT + 32, ly + 4,
                Html.escape(l.name())));
        }
        return b.append("</svg>").toString();
    }
}
