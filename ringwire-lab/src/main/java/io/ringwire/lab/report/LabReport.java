package io.ringwire.lab.report;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.cost.CostModel;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.server.ServerProfiler;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.RunResult;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything one lab command found: where it ran, what ran, every run, the summaries and verdicts, and the cost model
 * when it was measured. Written as {@code results.json} and as a self-contained {@code report.html}.
 *
 * @param command   the command line, for reproducing
 * @param machine   kernel, CPU, cores, JDK, pinning, date
 * @param notes     lines worth reading (skipped workloads, warnings)
 * @param summaries one per experiment
 * @param verdicts  one line per experiment
 * @param runs      every run
 * @param costModel the OpenAnolis cost model's figures, or null
 * @param connectionCosts the conns workload's memory per connection, every run (empty without it)
 * @param profiles  {@code --profile}: every run's profile (empty without it)
 */
public record LabReport(String command, Map<String, String> machine, List<String> notes, List<Summary> summaries,
                        List<String> verdicts, List<RunResult> runs, CostModel.Report costModel,
                        List<ConnectionCost> connectionCosts, List<Profile> profiles) {
    /** A report without the conns workload. */
    static LabReport of(String command, ServerJvm jvm, LoadGenerator.Engine generator, List<String> notes,
                        List<RunResult> runs, CostModel.Report costModel) {
        return of(command, jvm, generator, notes, runs, costModel, List.of());
    }

    /**
     * @param command   the command line
     * @param jvm       the servers' JVM flags
     * @param generator how the lab's load generator did its I/O
     * @param notes     lines worth reading
     * @param runs      every run
     * @param costModel or null
     * @param connectionCosts the conns workload's memory per connection, every run
     * @return the report with summaries and verdicts worked out
     */
    static LabReport of(String command, ServerJvm jvm, LoadGenerator.Engine generator, List<String> notes,
                        List<RunResult> runs, CostModel.Report costModel, List<ConnectionCost> connectionCosts) {
        return of(command, jvm, generator, notes, runs, costModel, connectionCosts, List.of());
    }

    /**
     * {@link #of(String, ServerJvm, LoadGenerator.Engine, List, List, CostModel.Report, List)} with profiles.
     *
     * @param profiles every run's profile ({@code --profile}); empty for none
     * @return the report
     */
    public static LabReport of(String command, ServerJvm jvm, LoadGenerator.Engine generator, List<String> notes,
                        List<RunResult> runs, CostModel.Report costModel, List<ConnectionCost> connectionCosts,
                        List<Profile> profiles) {
        List<Summary> summaries = Summary.of(runs);
        Map<String, String> machine = describeMachine();
        machine.put("server JVM flags", jvm.describe());
        // a variant's own setting, beyond the flags every server gets
        for (Competitor c : Competitor.values()) {
            if (!c.properties().isEmpty() && runs.stream().anyMatch(r -> r.server().equals(c.label()))) {
                machine.put(c.label(), c.transport() + " with " + String.join(" ", c.properties()));
            }
        }
        String lab = generator.label() + (generator == LoadGenerator.Engine.IO_URING
            ? ": one io_uring (multishot RECV into a buffer ring, batched SENDs, one enter per iteration)"
            : ": one NIO selector (a read and a write call per connection)") + ", one thread";
        // redis and http are driven by programs nobody here wrote, quic and tls-echo by clients of Netty's,
        // udp-echo and files by generators of their own
        java.util.Set<String> workloads = new java.util.TreeSet<>();
        runs.forEach(r -> workloads.add(r.workload()));
        List<String> external = new ArrayList<>();
        if (workloads.remove("redis")) {
            external.add("redis-benchmark for redis");
        }
        if (workloads.remove("redis-client")) { // the measured process is the client there
            external.add("one redis-server (Debian's), a fresh one per run, answering the Lettuce client measured, for "
                + "redis-client");
        }
        if (workloads.remove("http")) {
            external.add("wrk (one thread) for http");
        }
        if (workloads.remove("quic")) {
            external.add("Netty's QUIC client on Netty epoll, sending with GSO, one thread, for quic");
        }
        if (workloads.remove("tls-echo")) {
            external.add("Netty's SslHandler (" + io.ringwire.examples.TlsEchoServer.provider() + " engine, TLS 1.3) "
                + "on Netty epoll, one thread, for tls-echo");
        }
        if (workloads.remove("udp-echo")) {
            external.add("connected datagram sockets on one NIO selector, one thread, for udp-echo");
        }
        if (workloads.remove("files")) {
            external.add("one NIO selector reading whole files, one thread, for files");
        }
        machine.put("load generator", external.isEmpty() ? lab : workloads.isEmpty() ? String.join("; ", external)
            : lab + "; " + String.join("; ", external));
        if (!profiles.isEmpty()) {
            boolean clients = profiles.stream().allMatch(p -> Competitor.client(p.server()));
            machine.put("profiler", "async-profiler " + ServerProfiler.VERSION + " in every measured "
                + (clients ? "client JVM" : "server") + ", from "
                + "the window's opening to its closing: " + String.join(", ", profiles.stream().map(Profile::engine)
                    .distinct().toList()) + " every " + ServerProfiler.INTERVAL + " of CPU, Java, native and "
                + (profiles.stream().allMatch(Profile::kernelFrames) ? "kernel frames"
                    : "kernel frames where sampled (" + Profiling.kernelFramesAllowed() + ")")
                + "; its cost is in every figure, and no verdict is given");
        }
        return new LabReport(command, machine, List.copyOf(notes), summaries,
            summaries.stream().map(Summary::verdict).toList(), List.copyOf(runs), costModel,
            List.copyOf(connectionCosts), List.copyOf(profiles));
    }

    public static Map<String, String> describeMachine() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        m.put("kernel", read("/proc/sys/kernel/osrelease"));
        String cpu = "?";
        for (String line : read("/proc/cpuinfo").lines().toList()) {
            if (line.startsWith("model name")) {
                cpu = line.substring(line.indexOf(':') + 1).trim();
                break;
            }
        }
        m.put("cpu", cpu);
        m.put("cpus online", Integer.toString(ServerProcess.onlineCpus()));
        m.put("pinning", ServerProcess.canPin() ? "servers on CPU 1, load generator on CPU 0 (taskset)"
            : "none (one core, or no taskset): server and load generator share the CPUs");
        m.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());
        m.put("netty", io.netty.util.Version.identify().values().stream().findFirst()
            .map(v -> v.artifactVersion()).orElse("?"));
        return m;
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file)).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    /** How much the terminal shows besides the run lines and the summary. */
    public enum Detail {
        /** Nothing: the run lines and the summary only. */
        QUIET,
        /** A table per workload within 120 columns. */
        COMPACT,
        /** Every column, the verdict sentences, the servers' JVM flags and the load generator. */
        WIDE
    }

    /** @return the terminal text the lab prints by default ({@link Detail#COMPACT}) */
    public String text() {
        return text(Detail.COMPACT);
    }

    /**
     * @param detail how much to show
     * @return the terminal text before the summary: each table (the cost model's and memory per connection where
     *         measured), and with {@link Detail#WIDE} the verdicts and how every server and the generator ran
     */
    public String text(Detail detail) {
        StringBuilder b = new StringBuilder();
        if (detail == Detail.QUIET) {
            return "";
        }
        for (Summary s : summaries) {
            b.append('\n').append(detail == Detail.WIDE ? s.table() : s.compactTable());
        }
        if (costModel != null) {
            b.append('\n').append(costModel.text());
        }
        if (!connectionCosts.isEmpty()) {
            b.append(ConnectionCost.table(connectionCosts));
        }
        b.append(ProfileTable.text(profiles));
        List<String> after = new ArrayList<>(); // below the tables, after a blank line
        if (detail == Detail.WIDE) {
            verdicts.forEach(v -> after.add("verdict: " + v));
            String flags = machine.get("server JVM flags");
            if (flags != null) {
                after.add("every server ran with: " + flags);
            }
        }
        for (Competitor c : Competitor.values()) { // a variant's own setting on top of those (the only servers named)
            String variant = machine.get(c.label());
            if (variant != null) {
                after.add(c.label() + ": " + variant);
            }
        }
        String generator = machine.get("load generator");
        if (generator != null && detail == Detail.WIDE) {
            after.add("load generator: " + generator);
        }
        if (!after.isEmpty()) {
            b.append('\n');
            after.forEach(line -> b.append(line).append('\n'));
        }
        return b.toString();
    }

    /** @return the summary of every experiment: what the terminal ends with and the report opens with */
    Overview overview() {
        return Overview.of(summaries);
    }

    /**
     * @param html the report's path, or null
     * @return a blank line, the notes, then the summary, every line within {@link Overview#COLUMNS}
     */
    public String summaryText(Path html) {
        StringBuilder b = new StringBuilder("\n");
        for (String n : notes) {
            String[] lines = n.split("\n"); // a tool's own output after the note's sentence
            for (int i = 0; i < lines.length; i++) {
                Overview.wrap(b, lines[i], i == 0 ? "note: " : "      ", "      ");
            }
        }
        return b.append(overview().text(html)).toString();
    }

    /**
     * Writes results.json and report.html into {@code dir}.
     *
     * @param dir the output directory (created)
     * @return the HTML report
     * @throws IOException if writing fails
     */
    public Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path html = dir.resolve("report.html");
        Files.writeString(dir.resolve("results.json"), json(), StandardCharsets.UTF_8);
        Files.writeString(html, HtmlReport.render(this), StandardCharsets.UTF_8);
        return html;
    }

    /** @return the report as JSON; NaN (a figure that does not apply) is written as null */
    String json() throws IOException {
        return mapper().writeValueAsString(this);
    }

    static ObjectMapper mapper() {
        SimpleModule nanAsNull = new SimpleModule("nan-as-null");
        JsonSerializer<Double> doubles = new JsonSerializer<>() {
            @Override
            public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
                if (v == null || v.isNaN() || v.isInfinite()) {
                    g.writeNull();
                } else {
                    g.writeNumber(v);
                }
            }
        };
        nanAsNull.addSerializer(Double.class, doubles);
        nanAsNull.addSerializer(double.class, doubles);
        return new ObjectMapper().registerModule(nanAsNull).enable(SerializationFeature.INDENT_OUTPUT);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "LabReport[%s, %d runs]", command, runs.size());
    }

    /**
     * @param costs what the cost model measured
     * @param echo  the echo summary with ringwire and netty-epoll rows, or null
     * @return the model next to the observation
     */
    public static CostModel.Report costModel(CostModel.Costs costs, Summary echo) {
        Summary.Row rw = echo == null ? null : echo.row(Competitor.RINGWIRE.label());
        Summary.Row ep = echo == null ? null : echo.row(Competitor.NETTY_EPOLL.label());
        return CostModel.Report.of(costs, echo == null ? "" : echo.variant(),
            rw == null ? Double.NaN : rw.sqesPerEnter(),
            rw == null || ep == null ? Double.NaN : rw.cpuUsPerMsg() / ep.cpuUsPerMsg());
    }
}
