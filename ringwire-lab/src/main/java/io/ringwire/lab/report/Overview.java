package io.ringwire.lab.report;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Stats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The lab's answer at a glance, the last thing it prints and the first thing the report shows: per workload,
 * Ringwire's server CPU per message and rate as a multiple of Netty epoll's and Netty io_uring's (in the redis-client
 * workload, Lettuce on Ringwire's client CPU per command and rate as a multiple of Lettuce on epoll's and on
 * io_uring's: {@link Entry#subject}), each a ratio of
 * medians with its spread and whether the difference is measurable, by the verdicts' own statistics
 * ({@link Stats.Comparison}); the flags that limit what those figures say (the verdicts' tests, {@link Summary}); and
 * the published figure where the workload's source gave one ({@link PublishedFigure#against}).
 *
 * @param entries one per experiment, in the order they ran
 */
public record Overview(List<Overview.Entry> entries) {
    /** Whom Ringwire is set against. */
    static final List<String> AGAINST = List.of(Competitor.NETTY_EPOLL.label(), Competitor.NETTY_IO_URING.label());

    /** The widest line the terminal text has: a 120-column terminal shows it without wrapping. */
    static final int COLUMNS = 120;

    /** Width of the terminal text's first column (what is compared) and of each comparison. */
    private static final int LABEL = 25;
    private static final int CELL = 43;

    /**
     * One Ringwire server's runs against one competitor's.
     *
     * @param against the competitor
     * @param cpu     CPU per message, Ringwire's over the competitor's; null when the competitor did not run
     * @param rate    the same for the rate
     * @param offLoad at a fixed load, whether either side's rate strayed from the offered one
     *                ({@link Summary#offLoad}): CPU per message then compares two loads and gets no verdict
     */
    record Cell(String against, Stats.Comparison cpu, Stats.Comparison rate, boolean offLoad) {
        /** @return the CPU per message cell's text: {@link #cell(Stats.Comparison, boolean, boolean)}, or no verdict */
        String cpuText(boolean profiled) {
            return offLoad ? cell(cpu, NOT_AT_THE_LOAD) : cell(cpu, false, profiled);
        }
    }

    /** The words of a CPU per message cell whose two sides did not carry the same load. */
    static final String NOT_AT_THE_LOAD = "not the same load";

    /**
     * Ringwire, or a variant of it (ringwire-minwait), against each of {@link #AGAINST}; or a framework on Ringwire
     * against the same framework on epoll and io_uring ({@link #against}).
     *
     * @param server its label
     * @param cells  one per competitor, in the order of {@link #against}
     */
    record Line(String server, List<Cell> cells) { }

    /**
     * One experiment.
     *
     * @param workload its name
     * @param variant  its parameters
     * @param openLoop whether the load was fixed: the rate is then the one offered, not a result
     * @param lines    Ringwire first, then its variants; empty when Ringwire did not run
     * @param flags    what limits the figures: contaminated runs, a server in two modes, a saturated generator, ...
     * @param trade    the minimum-wait variant's median latency against Ringwire's, or null
     * @param published the published figure beside this machine's, or null
     * @param runs     runs per server (the rounds)
     * @param profiled whether a profiler sampled the servers: the ratios are shown, without a verdict
     * @param subject  whom the others are set against: ringwire, or where the measured processes were the
     *                 redis-client workload's clients lettuce-ringwire (against lettuce-epoll and lettuce-io_uring)
     */
    record Entry(String workload, String variant, boolean openLoop, List<Line> lines, List<String> flags,
                 String trade, PublishedFigure.Comparison published, int runs, boolean profiled, String subject) {
        /** @return "echo · 500 conns × 128 B at 20k msgs/s", and "(fixed load)" when it was */
        String title() {
            return workload + " · " + variant + (openLoop ? " (fixed load)" : "");
        }
    }

    /**
     * @param summaries every experiment's
     * @return the overview of them all
     */
    public static Overview of(List<Summary> summaries) {
        return new Overview(summaries.stream().map(Overview::entry).toList());
    }

    /**
     * @param server a Ringwire server's label
     * @return whom it is set against: Netty's epoll and io_uring servers, or for a framework's server on Ringwire
     *         ({@code webflux-ringwire}) the same framework on epoll and io_uring ({@code webflux-epoll},
     *         {@code webflux-io_uring})
     */
    static List<String> against(String server) {
        String framework = framework(server);
        return framework.isEmpty() ? AGAINST : List.of(framework + "epoll", framework + "io_uring");
    }

    /** @return "webflux-" for {@code webflux-ringwire}, "vertx-" for {@code vertx-ringwire}, else "" */
    private static String framework(String server) {
        return server.endsWith("-" + Competitor.RINGWIRE.label())
            ? server.substring(0, server.length() - Competitor.RINGWIRE.label().length()) : "";
    }

    /** @return whether {@code server} is Ringwire under a framework, compared with that framework elsewhere */
    private static boolean onFramework(String server) {
        return !framework(server).isEmpty() && Competitor.onFramework(server);
    }

    /**
     * @return whom the summary sets against the others: lettuce-ringwire where every entry measured the redis-client
     *         workload's clients, else ringwire
     */
    String subject() {
        String client = Competitor.LETTUCE_RINGWIRE.label();
        return !entries.isEmpty() && entries.stream().allMatch(e -> e.subject().equals(client)) ? client
            : Competitor.RINGWIRE.label();
    }

    /** @return the competitors of the summary's columns: {@link #AGAINST}, or Lettuce on epoll and on io_uring */
    List<String> columns() {
        return against(subject());
    }

    private static Entry entry(Summary s) {
        List<Line> lines = new ArrayList<>();
        List<String> offLoad = s.offLoad();
        for (Summary.Row r : s.rows()) {
            if (!Competitor.transportOf(r.server()).equals(Competitor.RINGWIRE.label()) && !onFramework(r.server())) {
                continue;
            }
            List<Cell> cells = new ArrayList<>();
            for (String against : against(r.server())) {
                Summary.Row other = s.row(against);
                cells.add(other == null ? new Cell(against, null, null, false) : new Cell(against,
                    Stats.Comparison.of(r.cpuRuns(), other.cpuRuns()),
                    Stats.Comparison.of(r.rateRuns(), other.rateRuns()),
                    offLoad.contains(r.server()) || offLoad.contains(against)));
            }
            lines.add(new Line(r.server(), cells));
        }
        // Ringwire first, its variants after, whatever order the servers ran in
        lines.sort(java.util.Comparator.comparing(l -> !l.server().equals(Competitor.RINGWIRE.label())));
        Summary.Row rw = s.row(Competitor.RINGWIRE.label());
        Summary.Row mw = s.row(Competitor.RINGWIRE_MIN_WAIT.label());
        String trade = rw == null || mw == null || Double.isNaN(rw.p50Us()) || Double.isNaN(mw.p50Us()) ? null
            : String.format(Locale.ROOT, "%s: median latency %,.0f µs against ringwire's %,.0f µs (it waits up to "
                + "%d µs to share a wake-up)", mw.server(), mw.p50Us(), rw.p50Us(), Competitor.MIN_WAIT_MICROS);
        int runs = s.rows().stream().mapToInt(Summary.Row::runs).max().orElse(0);
        return new Entry(s.workload(), s.variant(), s.openLoop(), List.copyOf(lines), flags(s, lines), trade,
            PublishedFigure.against(s), runs, s.profiled(), s.measured().equals("client")
                ? Competitor.LETTUCE_RINGWIRE.label() : Competitor.RINGWIRE.label());
    }

    /** The verdict's caveats that touch the servers compared here, and any failure at all, in short. */
    private static List<String> flags(Summary s, List<Line> lines) {
        Set<String> compared = lines.stream().map(Line::server).collect(Collectors.toCollection(LinkedHashSet::new));
        compared.addAll(AGAINST);
        lines.forEach(l -> compared.addAll(against(l.server()))); // a framework's on its other transports
        List<String> flags = new ArrayList<>();
        if (s.profiled()) {
            flags.add("PROFILED: async-profiler sampled every " + s.measured() + " in its window; its cost is in these "
                + "figures, which enter no verdict");
        }
        List<String> failed = s.rows().stream().filter(r -> !r.clean())
            .map(r -> r.server() + " " + (r.mismatches() + r.errors())).toList();
        if (!failed.isEmpty()) {
            flags.add("FAILED: mismatched bytes or errors: " + String.join(", ", failed) + " (exit code 1)");
        }
        if (s.contaminatedRuns() > 0) {
            flags.add(String.format(Locale.ROOT, "%d of %d runs had other processes using > %.1f cores: rerun on a "
                + "quiet machine before trusting them", s.contaminatedRuns(), s.totalRuns(),
                RunResult.CONTAMINATED_CORES));
        }
        for (Summary.Row r : s.twoModes()) {
            if (compared.contains(r.server())) {
                flags.add(String.format(Locale.ROOT, "%s ran in two modes (CPU per message %.2f-%.2f µs): its "
                    + "ratios say little; more rounds tell", r.server(), r.cpuMin(), r.cpuMax()));
            }
        }
        if (s.openLoop()) {
            for (String server : among(s.offLoad(), compared)) {
                Summary.Row r = s.row(server);
                flags.add(String.format(Locale.ROOT, "%s answered %.2f × the offered rate (%s): its CPU per message "
                    + "is another load's, so no verdict against it", server, r.rate() / r.offeredRate(),
                    r.rate() > r.offeredRate() ? "it fell behind its schedule and caught up" : "it did not keep up"));
            }
            List<String> late = among(s.lateAgainst(), compared);
            if (late.size() == s.rows().size()) {
                flags.add("the generator fell behind its schedule against every server (p99 > 1 ms late): the "
                    + "load was lighter than offered");
            } else if (!late.isEmpty()) {
                flags.add("the generator fell behind its schedule against " + String.join(", ", late)
                    + " (p99 > 1 ms late): a lighter load than the others'");
            }
        } else {
            List<String> generator = among(s.limitedBy("generator"), compared);
            if (!generator.isEmpty()) {
                flags.add("generator-limited against " + String.join(", ", generator) + ": the load generator used "
                    + "≥ 0.9 of its core, so those rates are partly its limit");
            }
            List<String> both = among(s.limitedBy("both"), compared);
            if (!both.isEmpty()) {
                flags.add("both sides saturated against " + String.join(", ", both) + ": CPU per message there is "
                    + "a core over the rate the pair reached");
            }
        }
        for (Summary.Row r : s.starving()) {
            if (compared.contains(r.server())) {
                flags.add(String.format(Locale.ROOT, "%s starved %d connection%s (answered only after the window)",
                    r.server(), r.starved(), r.starved() == 1 ? "" : "s"));
            }
        }
        return List.copyOf(flags);
    }

    private static List<String> among(List<String> servers, Set<String> compared) {
        return servers.stream().filter(compared::contains).toList();
    }

    /**
     * @param c        a comparison, or null when the competitor did not run
     * @param fixedLoad whether it is a rate offered at a fixed load (the same for every server by design)
     * @return "0.92 ± 0.05        lower", "1.02 ± 0.09        no measurable difference", "not run": the words
     *         start at the same column whatever the figures
     */
    static String cell(Stats.Comparison c, boolean fixedLoad) {
        return cell(c, fixedLoad, false);
    }

    /**
     * @param profiled whether the runs were profiled: the words say so instead of judging
     * @return {@link #cell(Stats.Comparison, boolean)}, or for profiled runs "1.31 ± 0.05        profiled: no verdict"
     */
    static String cell(Stats.Comparison c, boolean fixedLoad, boolean profiled) {
        return cell(c, c == null ? "" : fixedLoad ? "fixed load" : profiled ? Summary.PROFILED
            : c.difference().words());
    }

    /** @return the ratio and its spread, then {@code words} from the same column, or "not run", or "-" */
    private static String cell(Stats.Comparison c, String words) {
        if (c == null) {
            return "not run";
        }
        if (Double.isNaN(c.ratio())) {
            return "-";
        }
        String spread = Double.isNaN(c.halfInterval()) ? ""
            : lopsided(c) ? String.format(Locale.ROOT, " (%.2f-%.2f)", c.low(), c.high())
            : String.format(Locale.ROOT, " ± %.2f", c.halfInterval());
        return String.format(Locale.ROOT, "%-17s %s", String.format(Locale.ROOT, "%.2f%s", c.ratio(), spread),
            words);
    }

    /**
     * @return whether the 95 % interval lies so far more on one side of the ratio than on the other (twice as far)
     *         that "ratio ± half its width" would misplace it: a server whose runs fell in two modes, typically
     */
    private static boolean lopsided(Stats.Comparison c) {
        double below = c.ratio() - c.low();
        double above = c.high() - c.ratio();
        return below > 2 * above || above > 2 * below;
    }

    /** How to read the ratios, in the terminal's footer and above the report's table. */
    static final String HOW_TO_READ = "Ratio: ringwire's median over the other's, ± half its 95 % bootstrap interval "
        + "over the runs (the verdicts' interval; shown as low-high where lopsided). Lower or higher: every run of one "
        + "below or above every run of the other (the verdicts' test), else no measurable difference.";

    /**
     * @param report the HTML report's path, or null
     * @return the terminal text, every line at most {@link #COLUMNS} wide
     */
    public String text(Path report) {
        StringBuilder b = new StringBuilder();
        int runs = entries.stream().mapToInt(Entry::runs).max().orElse(0);
        List<String> columns = columns();
        b.append(String.format(Locale.ROOT, "== summary: %s as a multiple of %s and %s, %d run%s each ==%n",
            subject(), columns.get(0), columns.get(1), runs, runs == 1 ? "" : "s"));
        b.append(String.format(Locale.ROOT, "%-" + LABEL + "s%-" + CELL + "s%s%n", "", "× " + columns.get(0),
            "× " + columns.get(1)));
        for (Entry e : entries) {
            wrap(b, e.title(), "", "    ");
            if (e.lines().isEmpty()) {
                b.append("  ").append(e.subject()).append(" did not run\n");
            }
            for (Line l : e.lines()) {
                // the subject of the columns (ringwire; lettuce-ringwire where only clients ran) on rows of its own
                boolean own = l.server().equals(subject());
                if (onFramework(l.server()) && !own) {
                    List<String> others = against(l.server());
                    wrap(b, l.server() + " × " + others.get(0) + ", × " + others.get(1) + ":", "  ", "    ");
                    row(b, "    CPU per message", l, true, e);
                    row(b, "    rate", l, false, e);
                    continue;
                }
                row(b, own ? "  CPU per " + (Competitor.client(l.server()) ? "command" : "message")
                    : "  CPU, " + l.server(), l, true, e);
                if (own) {
                    row(b, "  rate", l, false, e);
                }
            }
            if (e.trade() != null) {
                wrap(b, e.trade(), "  ", "    ");
            }
            for (String f : e.flags()) {
                wrap(b, f, "  ! ", "    ");
            }
            if (e.published() != null) { // on one line if it fits, else the published figure and this machine's
                String line = "  " + e.published();
                if (line.length() <= COLUMNS) {
                    b.append(line).append('\n');
                } else {
                    wrap(b, e.published().published(), "  ", "    ");
                    wrap(b, e.published().here(), "    ", "    ");
                }
            }
        }
        wrap(b, HOW_TO_READ, "", "");
        if (report != null) {
            wrap(b, "report: " + report + " (every figure and the verdicts; results.json beside it)", "", "    ");
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String label, Line l, boolean cpu, Entry e) {
        b.append(String.format(Locale.ROOT, "%-" + LABEL + "s", label));
        for (int i = 0; i < l.cells().size(); i++) {
            Cell c = l.cells().get(i);
            String text = cpu ? c.cpuText(e.profiled()) : cell(c.rate(), e.openLoop(), e.profiled());
            b.append(i == l.cells().size() - 1 ? text : String.format(Locale.ROOT, "%-" + CELL + "s", text));
        }
        b.append('\n');
    }

    /**
     * Appends {@code text} in lines of at most {@link #COLUMNS} characters, broken at spaces.
     *
     * @param first what the first line starts with
     * @param rest  what each further line starts with
     */
    static void wrap(StringBuilder b, String text, String first, String rest) {
        StringBuilder line = new StringBuilder(first);
        boolean empty = true;
        for (String word : text.split(" ")) {
            if (!empty && line.length() + 1 + word.length() > COLUMNS) {
                b.append(line).append('\n');
                line = new StringBuilder(rest);
                empty = true;
            }
            if (!empty) {
                line.append(' ');
            }
            line.append(word);
            empty = false;
        }
        b.append(line).append('\n');
    }
}
