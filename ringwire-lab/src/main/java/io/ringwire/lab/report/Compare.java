package io.ringwire.lab.report;

import io.ringwire.lab.results.Stats;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./ringwire lab compare OLD NEW}: two results.json files of the same workloads, e.g. before and after a
 * change; per workload and server the ratio new/old of CPU per message and of the rate, each with its 95 % bootstrap
 * interval over the runs and whether the difference is measurable (the runs' min-max ranges do not overlap); and the
 * server's context switches per 1,000 messages (voluntary + involuntary, perf's context-switches), median old and new.
 */
public final class Compare {
    private Compare() { }

    /** What ends the key of a workload's profiled runs, which are listed apart and compared with nothing. */
    static final String PROFILED = " (profiled)";

    /**
     * What one server did in one workload of one file: every run's figures; {@code switches} its context switches
     * per 1,000 messages, of the runs that have them (a results.json from before the lab read them has none).
     */
    record Runs(List<Double> cpu, List<Double> rate, List<Double> switches) { }

    /**
     * @param file a results.json
     * @return "workload · variant" → server → its runs, in the file's order
     * @throws IOException if it cannot be read or is not a lab result
     */
    public static Map<String, Map<String, Runs>> read(Path file) throws IOException {
        JsonNode root = LabReport.mapper().readTree(Files.readString(file));
        JsonNode runs = root.get("runs");
        if (runs == null || !runs.isArray()) {
            throw new IOException(file + " is not a lab results.json (no \"runs\" array)");
        }
        Map<String, Map<String, Runs>> out = new LinkedHashMap<>();
        for (JsonNode r : runs) {
            // a profiled run (--profile) carries the profiler's cost: it is kept apart, never set against a plain one
            String key = r.path("workload").asText() + " · " + r.path("variant").asText()
                + (r.path("profiled").asBoolean(false) ? PROFILED : "");
            Runs x = out.computeIfAbsent(key, k -> new LinkedHashMap<>())
                .computeIfAbsent(r.path("server").asText(),
                    k -> new Runs(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
            add(x.cpu(), r.get("serverCpuUsPerMsg"));
            add(x.rate(), r.get("rate"));
            JsonNode voluntary = r.get("voluntaryCtxSwitchesPerKMsg");
            JsonNode involuntary = r.get("involuntaryCtxSwitchesPerKMsg");
            if (voluntary != null && voluntary.isNumber() && involuntary != null && involuntary.isNumber()) {
                x.switches().add(voluntary.asDouble() + involuntary.asDouble());
            }
        }
        return out;
    }

    private static void add(List<Double> to, JsonNode v) {
        if (v != null && v.isNumber()) {
            to.add(v.asDouble());
        }
    }

    /**
     * @param older the baseline
     * @param newer the one judged
     * @return the table: one line per workload and server present in both, then what is only in one
     */
    public static String table(Map<String, Map<String, Runs>> older, Map<String, Map<String, Runs>> newer) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-42s %-18s %-40s %-40s %s%n",
            "workload", "server", "CPU µs/msg new/old (95 % interval)", "rate new/old (95 % interval)",
            "ctx switches/1k msgs old → new"));
        List<String> unmatched = new ArrayList<>();
        for (Map.Entry<String, Map<String, Runs>> w : newer.entrySet()) {
            Map<String, Runs> before = older.get(w.getKey());
            for (Map.Entry<String, Runs> s : w.getValue().entrySet()) {
                Runs old = before == null ? null : before.get(s.getKey());
                if (w.getKey().endsWith(PROFILED)) {
                    unmatched.add(w.getKey() + " / " + s.getKey() + ": in the new results, not compared (the "
                        + "profiler's cost is in its figures)");
                    continue;
                }
                if (old == null) {
                    unmatched.add(w.getKey() + " / " + s.getKey() + ": only in the new results");
                    continue;
                }
                b.append(String.format(Locale.ROOT, "%-42s %-18s %-40s %-40s %s%n", w.getKey(), s.getKey(),
                    cell(s.getValue().cpu(), old.cpu(), "lower", "higher"),
                    cell(s.getValue().rate(), old.rate(), "lower", "higher"),
                    medians(old.switches(), s.getValue().switches())));
            }
        }
        for (Map.Entry<String, Map<String, Runs>> w : older.entrySet()) {
            for (String server : w.getValue().keySet()) {
                Map<String, Runs> after = newer.get(w.getKey());
                if (w.getKey().endsWith(PROFILED)) {
                    unmatched.add(w.getKey() + " / " + server + ": in the old results, not compared (the "
                        + "profiler's cost is in its figures)");
                } else if (after == null || !after.containsKey(server)) {
                    unmatched.add(w.getKey() + " / " + server + ": only in the old results");
                }
            }
        }
        unmatched.forEach(u -> b.append("  ").append(u).append('\n'));
        return b.toString();
    }

    /** @return "old → new" medians, "-" for a side without figures, "-" alone for two */
    private static String medians(List<Double> older, List<Double> newer) {
        return older.isEmpty() && newer.isEmpty() ? "-" : median(older) + " → " + median(newer);
    }

    private static String median(List<Double> v) {
        return v.isEmpty() ? "-" : Html.pretty(Stats.median(v));
    }

    private static String cell(List<Double> newer, List<Double> older, String less, String more) {
        if (newer.isEmpty() || older.isEmpty()) {
            return "-";
        }
        Stats.Comparison c = Stats.Comparison.of(newer, older);
        String judged = switch (c.difference()) {
            case CANNOT_TELL -> "1 run: can't tell";
            case NONE -> "no measurable change";
            case LOWER -> "measurably " + less;
            case HIGHER -> "measurably " + more;
        };
        return String.format(Locale.ROOT, "%.2f (%.2f-%.2f) %s", c.ratio(), c.low(), c.high(), judged);
    }
}
