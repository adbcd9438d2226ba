package io.ringwire.lab.report;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.ServerProfiler;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.ProfileLayer;
import io.ringwire.lab.results.Stats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code --profile}'s answer in the terminal: per experiment where both ran, Ringwire's and Netty epoll's CPU per
 * message (in the redis-client workload, Lettuce's on Ringwire and on Netty epoll, per command) split into
 * {@link ProfileLayer}s (each layer's share of the measured process's samples × its measured CPU per message), and the
 * leaf frames (self time) where the two differ most.
 */
final class ProfileTable {
    /** Frames listed where the two servers differ most. */
    static final int TOP = 12;

    /**
     * What the table sets side by side, Ringwire first: the servers on Ringwire and on Netty epoll; the redis-client
     * workload's clients, Lettuce on Ringwire and on Netty epoll (its baseline, {@link Summary#baseline}).
     */
    static final List<List<String>> PAIRS = List.of(
        List.of(Competitor.RINGWIRE.label(), Competitor.NETTY_EPOLL.label()),
        List.of(Competitor.LETTUCE_RINGWIRE.label(), Competitor.LETTUCE_EPOLL.label()));

    private ProfileTable() { }

    /**
     * One server's profiles of one experiment, pooled.
     *
     * @param server      the competitor
     * @param runs        profiled runs
     * @param cpuUsPerMsg the median over them of the process's CPU per message, JIT compiler threads included
     * @param samples     samples over them all
     * @param layers      µs per message in each layer: its share of the samples × {@code cpuUsPerMsg}
     * @param self        µs per message of each leaf frame, the same way
     * @param engines     the engines that ran, each once
     * @param kernelFrames whether any of its samples had kernel frames
     */
    record Column(String server, int runs, double cpuUsPerMsg, long samples, Map<ProfileLayer, Double> layers,
                  Map<String, Double> self, Set<String> engines, boolean kernelFrames) {
        /** @return µs per message in {@code layer} */
        double layer(ProfileLayer layer) {
            return layers.getOrDefault(layer, 0.0);
        }
    }

    /**
     * A leaf frame's cost on both servers.
     *
     * @param frame the frame as async-profiler names it
     * @param a     µs per message on the first server
     * @param b     on the second
     */
    record Difference(String frame, double a, double b) {
        /** @return a − b */
        double diff() {
            return a - b;
        }
    }

    /**
     * @param profiles one server's profiles of one experiment (at least one)
     * @return them pooled: shares from all their samples, times the median of their CPU per message
     */
    static Column column(List<Profile> profiles) {
        long total = 0;
        Map<ProfileLayer, Long> layers = new EnumMap<>(ProfileLayer.class);
        Map<String, Long> self = new HashMap<>();
        Set<String> engines = new LinkedHashSet<>();
        boolean kernel = false;
        for (Profile p : profiles) {
            total += p.samples();
            p.layers().forEach((l, n) -> layers.merge(l, n, Long::sum));
            p.self().forEach((f, n) -> self.merge(f, n, Long::sum));
            engines.add(p.engine());
            kernel |= p.kernelFrames();
        }
        double cpu = Stats.median(profiles.stream().map(Profile::cpuUsPerMsg).filter(x -> !Double.isNaN(x)).toList());
        Map<ProfileLayer, Double> us = new EnumMap<>(ProfileLayer.class);
        for (ProfileLayer l : ProfileLayer.values()) {
            us.put(l, total == 0 ? Double.NaN : layers.getOrDefault(l, 0L) * cpu / total);
        }
        Map<String, Double> selfUs = new HashMap<>();
        long t = total;
        self.forEach((f, n) -> selfUs.put(f, n * cpu / t));
        return new Column(profiles.get(0).server(), profiles.size(), cpu, total, us, selfUs, engines, kernel);
    }

    /**
     * @return the {@code n} leaf frames whose µs per message differ most between {@code a} and {@code b}, largest
     *         difference first (either sign)
     */
    static List<Difference> differences(Column a, Column b, int n) {
        Set<String> frames = new LinkedHashSet<>(a.self().keySet());
        frames.addAll(b.self().keySet());
        return frames.stream()
            .map(f -> new Difference(f, a.self().getOrDefault(f, 0.0), b.self().getOrDefault(f, 0.0)))
            .sorted(Comparator.comparingDouble((Difference d) -> -Math.abs(d.diff())).thenComparing(Difference::frame))
            .limit(n).toList();
    }

    /**
     * @param profiled the labels of an experiment's profiled servers or clients
     * @return the pair of {@link #PAIRS} the table sets side by side there: the clients' if any of them is a client
     */
    static List<String> pair(java.util.Collection<String> profiled) {
        return profiled.stream().anyMatch(Competitor::client) ? PAIRS.get(1) : PAIRS.get(0);
    }

    /** @return "client" for a client's label (redis-client), else "server": whose CPU a profile measured */
    static String measured(String label) {
        return Competitor.client(label) ? "client" : "server";
    }

    /** @return what the process's CPU is divided by: a client's commands, a server's messages */
    static String per(String label) {
        return Competitor.client(label) ? "command" : "message";
    }

    /** @return the profiles grouped per experiment, then per server, in the order they ran */
    static Map<String, Map<String, List<Profile>>> byExperiment(List<Profile> profiles) {
        Map<String, Map<String, List<Profile>>> out = new LinkedHashMap<>();
        for (Profile p : profiles) {
            out.computeIfAbsent(p.workload() + " · " + p.variant(), k -> new LinkedHashMap<>())
                .computeIfAbsent(p.server(), k -> new ArrayList<>()).add(p);
        }
        return out;
    }

    /**
     * @param profiles every profile of the lab's invocation
     * @return per experiment where both of its {@link #pair} were profiled (ringwire and netty-epoll, or
     *         lettuce-ringwire and lettuce-epoll), the layer table and the frames that differ most; for the others a
     *         line saying the flame graphs are written; empty without profiles
     */
    static String text(List<Profile> profiles) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Map<String, List<Profile>>> e : byExperiment(profiles).entrySet()) {
            List<String> pair = pair(e.getValue().keySet());
            List<Profile> a = e.getValue().get(pair.get(0));
            List<Profile> c = e.getValue().get(pair.get(1));
            b.append('\n');
            if (a == null || c == null) {
                Overview.wrap(b, "profile · " + e.getKey() + ": flame graphs of " + String.join(", ",
                    e.getValue().keySet()) + " in the report (the layer table sets " + pair.get(0) + " against "
                    + pair.get(1) + ", and not both were profiled)", "", "    ");
                continue;
            }
            table(b, e.getKey(), column(a), column(c));
        }
        return b.toString();
    }

    private static void table(StringBuilder b, String experiment, Column a, Column c) {
        String unit = per(a.server()).equals("command") ? "µs/command" : "µs/msg";
        Overview.wrap(b, "== profile · " + experiment + ": " + measured(a.server()) + " CPU " + unit
            + " by layer (PROFILED) ==", "", "   ");
        String row = "%-34s %12s %12s %9s%n";
        b.append(String.format(Locale.ROOT, row, "layer", a.server(), c.server(), "diff"));
        for (ProfileLayer l : ProfileLayer.values()) {
            b.append(String.format(Locale.ROOT, row, l.label(), us(a.layer(l)), us(c.layer(l)),
                signed(a.layer(l) - c.layer(l))));
        }
        b.append(String.format(Locale.ROOT, row, "total (process CPU, JIT included)", us(a.cpuUsPerMsg()),
            us(c.cpuUsPerMsg()), signed(a.cpuUsPerMsg() - c.cpuUsPerMsg())));
        b.append(String.format(Locale.ROOT, row, "samples", String.format(Locale.ROOT, "%,d", a.samples()),
            String.format(Locale.ROOT, "%,d", c.samples()), ""));
        b.append("frames (self time) where they differ most, µs per " + per(a.server()) + ":\n");
        String frameRow = "%-79s %12s %12s %9s%n";
        b.append(String.format(Locale.ROOT, frameRow, "frame", a.server(), c.server(), "diff"));
        for (Difference d : differences(a, c, TOP)) {
            b.append(String.format(Locale.ROOT, frameRow, shorten(display(d.frame()), 79), us(d.a()), us(d.b()),
                signed(d.diff())));
        }
        List<String> how = new ArrayList<>();
        how.add(a.server() + ": " + String.join(", ", a.engines()) + ", " + runs(a.runs()));
        how.add(c.server() + ": " + String.join(", ", c.engines()) + ", " + runs(c.runs()));
        String kernel = a.kernelFrames() && c.kernelFrames() ? "kernel frames sampled"
            : "NO kernel frames on " + (a.kernelFrames() ? c.server() : c.kernelFrames() ? a.server() : "either")
                + " (" + Profiling.kernelFramesAllowed() + "): kernel time is under 'other' or the caller's "
                + "layer there";
        Overview.wrap(b, "sampled by " + String.join("; ", how) + ", every " + ServerProfiler.INTERVAL
            + " of CPU; " + kernel + ". A layer: its share of the samples × the measured CPU per " + per(a.server())
            + " (the "
            + "median over the runs). The profiler's own cost is in these figures: they enter no verdict.", "", "");
    }

    private static String runs(int n) {
        return n + (n == 1 ? " run" : " runs");
    }

    /** @return a frame as the table shows it: Java classes with dots, kernel functions marked {@code [k]} */
    static String display(String frame) {
        if (frame.endsWith(ProfileLayer.KERNEL)) {
            return frame.substring(0, frame.length() - ProfileLayer.KERNEL.length()) + " [k]";
        }
        return frame.contains("::") ? frame : frame.replace('/', '.');
    }

    /** @return {@code s}, cut to {@code width} with its end kept (a method's name says more than its package) */
    static String shorten(String s, int width) {
        return s.length() <= width ? s : "…" + s.substring(s.length() - width + 1);
    }

    private static String us(double v) {
        return Summary.number("%.3f", v);
    }

    private static String signed(double v) {
        return Summary.number("%+.3f", v);
    }
}
