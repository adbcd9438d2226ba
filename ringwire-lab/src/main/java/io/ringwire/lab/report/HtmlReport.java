package io.ringwire.lab.report;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.cost.CostModel;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ServerProfiler;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.ProfileLayer;
import io.ringwire.lab.results.Sources;
import io.ringwire.lab.results.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The lab's report as one HTML file: inline CSS and SVG, no script, nothing fetched; it opens from disk. */
public final class HtmlReport {
    private HtmlReport() { }

    private static final String CSS = """
        body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#212529;padding:0 16px}
        h1{font-size:22px} h2{font-size:18px;margin-top:32px;border-bottom:1px solid #dee2e6}
        table{border-collapse:collapse;margin:8px 0} td,th{padding:3px 8px;border-bottom:1px solid #e9ecef;
        text-align:right;white-space:nowrap} th{background:#f1f3f5} td:first-child,th:first-child{text-align:left}
        table.machine td{white-space:normal;overflow-wrap:anywhere}
        .verdict{background:#e7f5ff;padding:8px 12px;border-left:4px solid #1f6feb}
        .bad{background:#fff5f5;border-left-color:#e03131}
        .charts{display:flex;flex-wrap:wrap;gap:16px} .chart text{font-size:11px} .chart .title{font-weight:600}
        .scroll{overflow-x:auto;max-width:100%} table.results{font-size:12px}
        .published{background:#fff9db;padding:6px;border:1px dashed #f08c00} .small{color:#495057;font-size:12px}
        """;

    /**
     * @param report what the lab found
     * @return the whole document
     */
    public static String render(LabReport report) {
        StringBuilder b = new StringBuilder(64 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Ringwire lab report</title>")
            .append("<style>").append(CSS).append("</style></head><body>\n");
        b.append("<h1>Ringwire lab report</h1>\n<p class=\"small\">").append(Html.escape(report.command()))
            .append("</p>\n<table class=\"machine\">");
        for (Map.Entry<String, String> e : report.machine().entrySet()) {
            b.append("<tr><th>").append(Html.escape(e.getKey())).append("</th><td style=\"text-align:left\">")
                .append(Html.escape(e.getValue())).append("</td></tr>");
        }
        b.append("</table>\n");
        for (String n : report.notes()) {
            b.append("<p class=\"verdict bad note\">").append(Html.escape(n)).append("</p>\n");
        }
        if (report.overview().subject().equals(Competitor.LETTUCE_RINGWIRE.label())) {
            b.append("<p class=\"small\">Each client ran in a fresh JVM against a fresh redis-server, pinned apart "
                + "from it when the machine has two cores; figures are medians over rounds (clients alternate order), "
                + "ratios are to lettuce-epoll. CPU per command is the client process's CPU time (its process CPU "
                + "clock) divided by the commands answered; the JIT compiler threads are left out of it and shown "
                + "apart (JIT cores); redis-server's cores stand in the loadgen column. Every reply was checked."
                + "</p>\n");
        } else {
            b.append("<p class=\"small\">Each server ran in a fresh JVM, pinned apart from the load generator when "
                + "the machine has two cores; figures are medians over rounds (servers alternate order), ratios are to "
                + "netty-epoll. CPU per message is the server process's CPU time (its process CPU clock) divided by "
                + "answers; the JIT compiler threads are left out of it and shown apart (JIT cores). Every echoed byte "
                + "was checked.</p>\n");
        }
        b.append("<p class=\"small\">Context switches, page faults and CPU migrations are counted per 1,000 answers "
            + "from /proc at the window's edges, as perf stat's context-switches (voluntary + involuntary), "
            + "page-faults (minor + major) and cpu-migrations; the switches and migrations of a thread that ended "
            + "inside the window are lost.</p>\n");
        b.append("<section class=\"overview\">\n");
        summary(b, report.overview());
        overview(b, report.summaries(), report.overview().subject());
        b.append("</section>\n");
        for (int i = 0; i < report.summaries().size(); i++) {
            section(b, report.summaries().get(i), report.verdicts().get(i));
        }
        if (!report.profiles().isEmpty()) {
            profiles(b, report.profiles());
        }
        if (report.costModel() != null) {
            costModel(b, report.costModel());
        }
        if (!report.connectionCosts().isEmpty()) {
            connectionCosts(b, report.connectionCosts());
        }
        return b.append("</body></html>\n").toString();
    }

    /**
     * The first chart: Ringwire's CPU per message over each competitor's, per workload, with 95 % intervals; or where
     * only the redis-client workload's clients ran ({@code rw} lettuce-ringwire), Lettuce on Ringwire's CPU per
     * command.
     */
    private static void overview(StringBuilder b, List<Summary> summaries, String rw) {
        // a profiled run's ratios enter no verdict, and this chart's whiskers are the verdicts' test
        List<Summary> withRingwire = summaries.stream().filter(s -> s.row(rw) != null && !s.profiled()).toList();
        List<String> others = new ArrayList<>();
        for (Summary s : withRingwire) {
            // Ringwire's own variants (ringwire-minwait) are not competitors: their table rows show them
            s.rows().stream().map(Summary.Row::server)
                .filter(x -> !Competitor.transportOf(x).equals(rw) && !others.contains(x))
                .forEach(others::add);
        }
        if (withRingwire.isEmpty() || others.isEmpty()) {
            return;
        }
        List<String> labels = withRingwire.stream().map(s -> s.workload() + " " + s.variant()).toList();
        double[][] ratio = new double[others.size()][labels.size()];
        double[][] low = new double[others.size()][labels.size()];
        double[][] high = new double[others.size()][labels.size()];
        for (int o = 0; o < others.size(); o++) {
            for (int w = 0; w < withRingwire.size(); w++) {
                Summary.Row a = withRingwire.get(w).row(rw);
                Summary.Row other = withRingwire.get(w).row(others.get(o));
                Stats.Comparison c = Stats.Comparison.of(a.cpuRuns(), other == null ? List.of() : other.cpuRuns());
                ratio[o][w] = c.ratio();
                low[o][w] = c.low();
                high[o][w] = c.high();
            }
        }
        boolean clients = rw.equals(Competitor.LETTUCE_RINGWIRE.label());
        b.append(clients ? "<h2>At a glance: Lettuce on Ringwire's client CPU per command over each other "
                + "client's</h2>\n<p class=\"small\">Below 1: Lettuce on Ringwire spends less."
                : "<h2>At a glance: Ringwire's server CPU per message over each "
            + "competitor's</h2>\n<p class=\"small\">Below 1: Ringwire spends less. Whiskers: 95 % bootstrap "
            + "interval of the ratio of medians over runs; a whisker that crosses 1 means no measurable "
            + "difference.</p>\n<div class=\"charts\">")
            .append(Charts.grouped(rw + " / " + (clients ? "client, CPU per command" : "competitor, CPU per message"),
                "×", labels, others, ratio, low, high,
                null, false))
            .append("</div>\n");
    }

    /**
     * The terminal's summary as a table: a row per workload (and one per Ringwire variant that ran there), its
     * caveats and the published figure beside it.
     */
    private static void summary(StringBuilder b, Overview overview) {
        List<String> columns = overview.columns();
        b.append(overview.subject().equals(Competitor.LETTUCE_RINGWIRE.label())
                ? "<h2>Summary: Lettuce on Ringwire as a multiple of Lettuce on Netty epoll and on Netty io_uring</h2>"
                : "<h2>Summary: Ringwire as a multiple of Netty epoll and Netty io_uring</h2>")
            .append("\n<p class=\"small\">")
            .append(Html.escape(Overview.HOW_TO_READ)).append("</p>\n<div class=\"scroll\"><table class=\"summary\">")
            .append("<tr><th>workload</th><th>server</th>");
        for (String measure : new String[] {"CPU per message", "rate"}) {
            for (String against : columns) { // a framework's row: the same framework on that transport
                b.append("<th>").append(Html.escape(measure + " × " + against.replace("netty-", ""))).append("</th>");
            }
        }
        b.append("<th style=\"text-align:left\">notes</th></tr>\n");
        for (Overview.Entry e : overview.entries()) {
            List<String> notes = new ArrayList<>();
            if (e.trade() != null) {
                notes.add(e.trade());
            }
            notes.addAll(e.flags());
            if (e.published() != null) {
                notes.add(e.published().toString());
            }
            String notesCell = "<td style=\"text-align:left;white-space:normal\" rowspan=\""
                + Math.max(1, e.lines().size()) + "\">" + Html.escape(String.join("; ", notes)) + "</td>";
            String workloadCell = "<td rowspan=\"" + Math.max(1, e.lines().size()) + "\">" + Html.escape(e.title())
                + "</td>";
            if (e.lines().isEmpty()) {
                b.append("<tr data-workload=\"").append(Html.escape(e.workload())).append("\">").append(workloadCell)
                    .append("<td colspan=\"5\">").append(Html.escape(e.subject())).append(" did not run</td>")
                    .append(notesCell).append("</tr>\n");
            }
            for (int i = 0; i < e.lines().size(); i++) {
                Overview.Line l = e.lines().get(i);
                b.append("<tr data-workload=\"").append(Html.escape(e.workload())).append("\" data-server=\"")
                    .append(Html.escape(l.server())).append("\">").append(i == 0 ? workloadCell : "").append("<td>")
                    .append(Html.escape(l.server())).append(columns.equals(Overview.against(l.server())) ? ""
                        : Html.escape(" (× " + String.join(", × ", Overview.against(l.server())) + ")"))
                    .append("</td>");
                for (Overview.Cell c : l.cells()) {
                    b.append("<td>").append(Html.escape(c.cpuText(e.profiled())))
                        .append("</td>");
                }
                for (Overview.Cell c : l.cells()) {
                    b.append("<td>").append(Html.escape(Overview.cell(c.rate(), e.openLoop(), e.profiled())))
                        .append("</td>");
                }
                b.append(i == 0 ? notesCell : "").append("</tr>\n");
            }
        }
        b.append("</table></div>\n");
    }

    private static void section(StringBuilder b, Summary s, String verdict) {
        boolean bad = s.rows().stream().anyMatch(r -> !r.clean());
        b.append("<section class=\"workload\" data-workload=\"").append(Html.escape(s.workload())).append("\">\n");
        b.append("<h2>").append(Html.escape(s.workload())).append(" · ").append(Html.escape(s.variant()))
            .append("</h2>\n<p class=\"verdict").append(bad ? " bad" : "").append("\">")
            .append(Html.escape(verdict)).append("</p>\n");
        String[] head = {"server", "runs", s.openLoop() ? "answers/s" : "msgs/s", "min", "max", "×epoll", "p50 µs",
            "p99 µs", "p99.9 µs", "CPU µs/msg", "×epoll", "server cores", "JIT cores", "loadgen cores", "limit",
            "RSS MiB", "RSS outside heap MiB", "non-heap MiB", "heap peak MiB", "heap live MiB", "direct MiB", "GCs",
            "GC ms", "alloc B/msg", "voluntary ctx switches /1k msgs", "involuntary ctx switches /1k msgs",
            "minor faults /1k msgs", "major faults /1k msgs", "CPU migrations /1k msgs", "SQEs/enter", "iovecs/write",
            "bytes/recv", "mismatches", "errors", "starved"};
        b.append("<div class=\"scroll\"><table class=\"results\"><tr>");
        for (String h : head) {
            b.append("<th>").append(Html.escape(h)).append("</th>");
        }
        b.append("</tr>\n");
        for (Summary.Row r : s.rows()) {
            double[] v = {r.runs(), r.rate(), r.rateMin(), r.rateMax(), r.rateVsEpoll(), r.p50Us(), r.p99Us(),
                r.p999Us(), r.cpuUsPerMsg(), r.cpuVsEpoll(), r.serverUtil(), r.jitUtil(), r.loadgenUtil(),
                r.peakRssMiB(), r.rssOutsideHeapMiB(), r.nonHeapMiB(), r.heapPeakMiB(), r.liveHeapMiB(),
                r.directPeakMiB(), r.gcCount(), r.gcMillis(), r.allocBytesPerMsg(), r.voluntaryCtxSwitchesPerKMsg(),
                r.involuntaryCtxSwitchesPerKMsg(), r.minorFaultsPerKMsg(), r.majorFaultsPerKMsg(),
                r.cpuMigrationsPerKMsg(), r.sqesPerEnter(),
                r.iovecsPerWrite(), r.bytesPerRecv(), r.mismatches(), r.errors(), r.starved()};
            b.append("<tr data-server=\"").append(Html.escape(r.server())).append("\"><td>")
                .append(Html.escape(r.server())).append("</td>");
            for (int i = 0; i < v.length; i++) {
                boolean count = i == 0 || i >= v.length - 3; // runs, mismatches, errors, starved
                b.append("<td>").append(count ? Long.toString((long) v[i]) : Html.pretty(v[i])).append("</td>");
                if (i == 12) { // after the generator's cores: which side set the pace
                    b.append("<td>").append(Html.escape(r.limit())).append("</td>");
                }
            }
            b.append("</tr>\n");
        }
        b.append("</table></div>\n<div class=\"charts\">\n");
        List<String> servers = s.rows().stream().map(Summary.Row::server).toList();
        boolean clients = s.measured().equals("client");
        String rw = clients ? Competitor.LETTUCE_RINGWIRE.label() : Competitor.RINGWIRE.label();
        b.append(Charts.grouped((s.openLoop() ? "answers per second at the offered rate" : "throughput")
                + ", min-max over runs", "msgs/s", servers, List.of("msgs/s"), new double[][] {values(s,
                Summary.Row::rate)}, new double[][] {values(s, Summary.Row::rateMin)},
            new double[][] {values(s, Summary.Row::rateMax)}, rw, false)).append('\n');
        b.append(Charts.grouped(clients ? "client CPU per command, min-max over runs"
                : "server CPU per message, min-max over runs", "µs", servers, List.of("µs"),
            new double[][] {values(s, Summary.Row::cpuUsPerMsg)}, new double[][] {values(s, Summary.Row::cpuMin)},
            new double[][] {values(s, Summary.Row::cpuMax)}, rw, false)).append('\n');
        b.append(Charts.grouped("latency percentiles", "µs", servers, List.of("p50", "p99", "p99.9"),
            new double[][] {values(s, Summary.Row::p50Us), values(s, Summary.Row::p99Us),
                values(s, Summary.Row::p999Us)}, null, true)).append('\n');
        b.append(Charts.grouped("server memory", "MiB", servers,
            List.of("heap peak", "heap live", "direct peak", "non-heap committed", "RSS outside heap", "RSS peak"),
            new double[][] {values(s, Summary.Row::heapPeakMiB), values(s, Summary.Row::liveHeapMiB),
                values(s, Summary.Row::directPeakMiB), values(s, Summary.Row::nonHeapMiB),
                values(s, Summary.Row::rssOutsideHeapMiB),
                values(s, Summary.Row::peakRssMiB)}, null, false)).append('\n');
        PublishedFigure published = PublishedFigure.forWorkload(s.workload());
        if (published != null) { // its source's title and link as text: the page links to nothing
            b.append("<div class=\"published\" data-source=\"").append(Html.escape(published.source())).append("\">")
                .append(Charts.bars(Sources.capitalized(published.source()) + ": " + published.title(),
                    published.unit(), new ArrayList<>(published.values().keySet()),
                    published.values().values().stream().mapToDouble(Double::doubleValue).toArray(), null))
                .append("<p class=\"small\">").append(Html.escape(published.about() + " Source: "
                    + published.cited() + ".")).append("</p></div>\n");
        }
        b.append("</div>\n</section>\n");
    }

    /**
     * {@code --profile}: per experiment, ringwire's and netty-epoll's CPU per message by layer (lettuce-ringwire's and
     * lettuce-epoll's per command, in the redis-client workload) and the frames where they differ most (as in the
     * terminal), and a link to every run's flame graph.
     */
    private static void profiles(StringBuilder b, List<Profile> profiles) {
        b.append("<section class=\"profiles\">\n<h2>Profiles (PROFILED runs: no verdict)</h2>\n<p class=\"small\">")
            .append(Html.escape("async-profiler sampled each measured process (each server, or in the redis-client "
                + "workload each client JVM) from its window's opening to its closing, every "
                + ServerProfiler.INTERVAL + " of CPU, with Java, native and kernel frames. A layer's figure is its "
                + "share of the samples × the process's measured CPU per message or command (its JIT compiler threads "
                + "included, as they are in the samples), pooled over the runs. The profiler's own cost is in every "
                + "figure of these runs. Each flame graph is interactive: click a frame to zoom, search with the button at the "
                + "top right.")).append("</p>\n");
        for (Map.Entry<String, Map<String, List<Profile>>> e : ProfileTable.byExperiment(profiles).entrySet()) {
            b.append("<h3>").append(Html.escape(e.getKey())).append("</h3>\n");
            List<String> pair = ProfileTable.pair(e.getValue().keySet());
            List<Profile> rw = e.getValue().get(pair.get(0));
            List<Profile> epoll = e.getValue().get(pair.get(1));
            if (rw != null && epoll != null) {
                ProfileTable.Column a = ProfileTable.column(rw);
                ProfileTable.Column c = ProfileTable.column(epoll);
                String per = ProfileTable.per(a.server());
                b.append("<table class=\"results layers\"><tr><th>layer, µs per ").append(per).append("</th><th>")
                    .append(Html.escape(a.server())).append("</th><th>").append(Html.escape(c.server()))
                    .append("</th><th>difference</th></tr>\n");
                for (ProfileLayer l : ProfileLayer.values()) {
                    layerRow(b, l.label(), a.layer(l), c.layer(l));
                }
                layerRow(b, "total (process CPU, JIT included)", a.cpuUsPerMsg(), c.cpuUsPerMsg());
                b.append("</table>\n<table class=\"results frames\"><tr><th>frame (self time), µs per ").append(per)
                    .append("</th><th>").append(Html.escape(a.server())).append("</th><th>")
                    .append(Html.escape(c.server())).append("</th><th>difference</th></tr>\n");
                for (ProfileTable.Difference d : ProfileTable.differences(a, c, ProfileTable.TOP)) {
                    layerRow(b, ProfileTable.display(d.frame()), d.a(), d.b());
                }
                b.append("</table>\n");
            }
            b.append("<ul class=\"flamegraphs\">");
            for (List<Profile> server : e.getValue().values()) {
                for (Profile p : server) {
                    b.append("<li><a href=\"").append(Html.escape(p.flameGraph())).append("\">")
                        .append(Html.escape(p.server() + ", round " + p.round())).append("</a> ")
                        .append(Html.escape(String.format(Locale.ROOT, "(%s, %,d samples%s; stacks: ", p.engine(),
                            p.samples(), p.kernelFrames() ? "" : ", no kernel frames")))
                        .append("<a href=\"").append(Html.escape(p.collapsed())).append("\">collapsed</a>)</li>");
                }
            }
            b.append("</ul>\n");
        }
        b.append("</section>\n");
    }

    private static void layerRow(StringBuilder b, String label, double a, double c) {
        b.append("<tr><td style=\"text-align:left\">").append(Html.escape(label)).append("</td><td>")
            .append(Summary.number("%.3f", a)).append("</td><td>").append(Summary.number("%.3f", c))
            .append("</td><td>").append(Summary.number("%+.3f", a - c)).append("</td></tr>\n");
    }

    private static double[] values(Summary s, ToDoubleFunction<Summary.Row> f) {
        return s.rows().stream().mapToDouble(f).toArray();
    }

    /** The conns workload: memory per connection per server, a table and a chart per variant. */
    private static void connectionCosts(StringBuilder b, List<ConnectionCost> costs) {
        List<ConnectionCost> medians = ConnectionCost.medians(costs);
        List<String> variants = medians.stream().map(ConnectionCost::variant).distinct().toList();
        for (String variant : variants) {
            List<ConnectionCost> rows = medians.stream().filter(c -> c.variant().equals(variant)).toList();
            b.append("<section class=\"workload\" data-workload=\"conns-memory\">\n<h2>conns · ")
                .append(Html.escape(variant)).append(" · memory per connection</h2>\n<p class=\"small\">Live "
                    + "after a full GC, with every connection open minus before any (after a short priming load), "
                    + "divided by the connections; bytes, medians over rounds. Native: thread stacks, malloc, "
                    + "Unsafe and FFM memory (Native Memory Tracking); GC: the collector's structures; transport: "
                    + "the transport's own classes (its per-channel state), netty: the rest of Netty (pipeline, "
                    + "contexts, config); jdk: JDK objects and arrays. Kernel: the machine's memory for TCP "
                    + "connections (socket buffers from /proc/net/sockstat, and as root each socket's slab objects), "
                    + "both ends of each, the load generator's too.</p>\n<div class=\"scroll\"><table "
                    + "class=\"results\"><tr>");
            for (String h : new String[] {"server", "runs", "set-up conns/s", "heap", "native", "GC", "total",
                "RSS", "kernel", "transport", "netty", "jdk", "top classes"}) {
                b.append("<th>").append(Html.escape(h)).append("</th>");
            }
            b.append("</tr>\n");
            for (ConnectionCost c : rows) {
                b.append("<tr data-server=\"").append(Html.escape(c.server())).append("\"><td>")
                    .append(Html.escape(c.server())).append("</td><td>").append(c.round()).append("</td>");
                for (double v : new double[] {c.connectsPerSec(), c.heapPerConn(), c.nativePerConn(),
                    c.gcPerConn(), c.totalPerConn(), c.rssPerConn(), c.kernelPerConn(),
                    ConnectionCost.transportPackage(c.server()) == null ? Double.NaN : c.transportPerConn(),
                    c.nettyPerConn(), c.otherPerConn()}) {
                    b.append("<td>").append(Html.pretty(v)).append("</td>");
                }
                b.append("<td style=\"text-align:left;white-space:normal\">").append(Html.escape(String.join(", ",
                    c.top().stream().limit(5).map(t -> String.format(Locale.ROOT, "%s %.1f× %.0f B",
                        ConnectionCost.shortName(t.name()), t.instancesPerConn(), t.bytesPerConn())).toList())))
                    .append("</td></tr>\n");
            }
            List<String> servers = rows.stream().map(ConnectionCost::server).toList();
            b.append("</table></div>\n<div class=\"charts\">").append(Charts.grouped("memory per connection",
                "B", servers, List.of("heap", "native", "GC", "total"), new double[][] {
                    rows.stream().mapToDouble(ConnectionCost::heapPerConn).toArray(),
                    rows.stream().mapToDouble(ConnectionCost::nativePerConn).toArray(),
                    rows.stream().mapToDouble(ConnectionCost::gcPerConn).toArray(),
                    rows.stream().mapToDouble(ConnectionCost::totalPerConn).toArray()}, Competitor.RINGWIRE.label(),
                false))
                .append("</div>\n</section>\n");
        }
    }

    private static void costModel(StringBuilder b, CostModel.Report m) {
        CostModel.Costs c = m.costs();
        b.append("<section class=\"workload\" data-workload=\"cost-model\">\n<h2>cost-model</h2>\n");
        b.append("<p class=\"small\">").append(Html.escape("Source: " + Sources.COST_MODEL_CITED + "."))
            .append("</p>\n");
        b.append("<p>").append(Html.escape(String.format(Locale.ROOT, "s = %s (user/kernel switch), w = %s (kernel "
            + "send/recv work, %d B), t = %s (io_uring per operation at batch 1); epoll pays s + w = %s.",
            CostModel.Costs.ns(c.s()), CostModel.Costs.ns(c.w()), c.size(), CostModel.Costs.ns(c.t()),
            CostModel.Costs.ns(c.epoll())))).append("</p>\n");
        for (String caveat : c.caveats()) {
            b.append("<p class=\"small\">").append(Html.escape(caveat)).append("</p>\n");
        }
        if (!Double.isNaN(m.observedN())) {
            b.append("<p class=\"verdict\">").append(Html.escape(String.format(Locale.ROOT, "echo %s: Ringwire's "
                + "n = %.2f SQEs per enter; predicted io_uring/epoll %.2f (the model's formula) or %.2f (per "
                + "operation); measured ringwire/netty-epoll CPU per message %.2f.", m.echoVariant(), m.observedN(),
                m.seedPredictedRatio(), m.perOpPredictedRatio(), m.measuredRatio()))).append("</p>\n");
        }
        List<String> labels = new ArrayList<>();
        double[] seedModel = new double[m.batches().length];
        double[] perOp = new double[m.batches().length];
        double[] epoll = new double[m.batches().length];
        for (int i = 0; i < m.batches().length; i++) {
            labels.add("n = " + m.batches()[i]);
            seedModel[i] = c.seedModel(m.batches()[i]);
            perOp[i] = c.perOpModel(m.batches()[i]);
            epoll[i] = c.epoll();
        }
        b.append("<div class=\"charts\">").append(Charts.grouped("cost per send by batch", "ns", labels,
            List.of("measured", "model (t+s)/n", "s/n + t", "epoll s + w"),
            new double[][] {c.perOpAtN(), seedModel, perOp, epoll}, null, false)).append("</div>\n</section>\n");
    }
}
