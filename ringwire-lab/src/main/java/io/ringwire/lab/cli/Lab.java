package io.ringwire.lab.cli;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.cost.CostModel;
import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Planning;
import io.ringwire.lab.experiment.Progress;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.report.Compare;
import io.ringwire.lab.report.LabReport;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.soak.Soak;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Sources;
import io.ringwire.uring.Probe;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code ./ringwire lab}: the published experiments Ringwire comes from ({@link Sources}) on this machine, every
 * server side by side, a verdict per workload, {@code results.json} and a self-contained {@code report.html}.
 */
@Command(name = "lab", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Lab.Version.class,
    subcommands = {Lab.Echo.class, Lab.RpcBackend.class, Lab.RpcFrontend.class, Lab.SingleStream.class,
        Lab.UdpEcho.class, Lab.Quic.class, Lab.TlsEcho.class, Lab.DomainEcho.class, Lab.Files.class, Lab.Conns.class,
        Lab.Redis.class, RedisClientCommand.class, Lab.Http.class, Lab.CostModelCommand.class, Lab.All.class, Lab.ProbeCommand.class,
        Lab.CompareCommand.class, Lab.SoakCommand.class, Sweep.class},
    description = {"Ringwire's lab: the published experiments Ringwire comes from (README.md, \"Where Ringwire comes "
            + "from\"), every I/O model side by side, on this machine.",
        "",
        "Servers (each in its own JVM, the same handler on each): ringwire, netty-io_uring, netty-epoll, netty-nio "
            + "(one event-loop thread unless --threads), blocking-platform and blocking-virtual (a thread per "
            + "connection: the baseline of " + Sources.TYMA_CITED + "). Asked for by name, for echo and the frame "
            + "workloads: c-io_uring and c-epoll, the lab's C reference servers (the floor; 'sweep' runs them by "
            + "default).",
        "",
        "Without a subcommand it runs the default suite (about 12 minutes on 2 cores): echo 500 conns × 128 B at a "
            + "fixed 20k msgs/s (open loop: every server does the same work, so CPU per message and latency compare "
            + "directly; ringwire-minwait, Ringwire with a 200 µs minimum wait, runs beside them there), echo 500 "
            + "conns × 128 B × 1 at saturation (closed loop), rpc-backend 32 conns × 1000 streams × 32 msgs × 128 B, "
            + "single-stream 1 KiB with a 16384-message window; all six servers, 2 rounds, 3 s measured after a "
            + "warm-up of 2-6 s (until the server's JIT compiler threads are quiet).",
        "",
        "--quick: a first look in about 2 minutes: the fixed-rate echo and rpc-backend on ringwire, netty-io_uring "
            + "and netty-epoll, 2 rounds.",
        "",
        "Each run: a fresh server pinned to CPU 1 (when there are 2 cores), the load generator on CPU 0, warm-up, "
            + "then a measured window (the server's JIT compiler threads are counted apart from its CPU per message); "
            + "servers alternate A B C / C B A across rounds; medians with min-max and "
            + "ratios to netty-epoll. Every echoed byte is checked: any mismatch or error makes the exit code 1.",
        "",
        "It prints a line per run, a table per workload, and ends with a summary: per workload, ringwire's server CPU "
            + "per message and rate as a multiple of netty-epoll's and netty-io_uring's: the ratio of medians ± half "
            + "its 95 %% bootstrap interval over the runs (the interval itself, low-high, where it is lopsided), and "
            + "'lower' or 'higher' where every run of one is below or above every run of the other, else 'no "
            + "measurable difference' (the verdicts' own test); then the path of report.html.",
        ""})
public final class Lab implements Callable<Integer> {
    /** {@code lab --version}: what is being compared, on what. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String own = Lab.class.getPackage().getImplementationVersion();
            return new String[] {"ringwire lab " + (own == null ? "(development build)" : own),
                "Netty " + LabReport.describeMachine().get("netty"), "JDK " + Runtime.version(),
                "Linux " + LabReport.describeMachine().get("kernel")};
        }
    }

    /** Options every workload shares. */
    static final class Common {
        @Option(names = "--servers", split = ",", paramLabel = "NAME",
            description = "comma-separated subset of: ringwire, netty-io_uring, netty-epoll, netty-nio, "
                + "blocking-platform, blocking-virtual (default: these six, and at a fixed offered load (echo "
                + "--rate, http --rate, rpc-frontend) ringwire-minwait: Ringwire with minWaitMicros=200, fewer wake-ups for up "
                + "to 200 µs more latency); for http also vertx-ringwire, vertx-io_uring, vertx-epoll (Vert.x's "
                + "HTTP server on each of its transports) and webflux-ringwire, webflux-epoll (a Spring Boot WebFlux "
                + "application on Ringwire and on Reactor Netty's epoll); for echo and the frame workloads also "
                + "c-io_uring and c-epoll, the lab's C reference servers (built with gcc and liburing on first use); "
                + "for redis-client the clients: lettuce-ringwire, lettuce-epoll, lettuce-io_uring (the default there)")
        List<String> servers;

        @Option(names = "--rounds", defaultValue = "2", description = "rounds; server order reverses each round "
            + "(default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--warmup", defaultValue = "2", description = "unmeasured seconds per run, at least "
            + "(default: ${DEFAULT-VALUE})")
        double warmup;

        @Option(names = "--max-warmup", description = "unmeasured seconds per run, at most: in "
            + "between, the window opens once the measured JVM's JIT compiler threads are quiet (< 0.05 cores for "
            + "3 s) (default: 6; 20 for http, whose warm-up opens and closes every connection each second, for "
            + "rpc-backend and for redis-client)")
        Double maxWarmup;

        @Option(names = "--seconds", defaultValue = "3", description = "measured seconds per run "
            + "(default: ${DEFAULT-VALUE})")
        double seconds;

        @Option(names = "--threads", defaultValue = "1", description = "event-loop threads of the Netty-based "
            + "servers (default: ${DEFAULT-VALUE})")
        int threads;

        @Option(names = "--out", defaultValue = "lab-results", description = "directory for results.json and "
            + "report.html (default: ${DEFAULT-VALUE})")
        Path out;

        @Option(names = "--netty-unsafe", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "let Netty use sun.misc.Unsafe (--sun-misc-unsafe-memory-access=allow on every server "
                + "JVM: Netty at its best, as on the JDKs most of its users run); --no-netty-unsafe runs every "
                + "server with -Dio.netty.noUnsafe=true instead (default: ${DEFAULT-VALUE})")
        boolean nettyUnsafe;

        @Option(names = "--wide", description = "every column of each table, every run's figures and the long "
            + "verdict sentences (wider than 120 columns); results.json and report.html always have them")
        boolean wide;

        @Option(names = "--quiet", description = "print only a line per run and the summary")
        boolean quiet;

        @Option(names = "--generator", defaultValue = "best", paramLabel = "io_uring|nio",
            description = "how the lab's load generator does its I/O: io_uring (one ring, multishot receives, batched "
                + "sends, one io_uring_enter per iteration: the cheaper, so the server saturates first) or nio (one "
                + "selector, a read and a write call per connection); 'best' is io_uring where the kernel has it "
                + "(default: ${DEFAULT-VALUE})")
        String generator;

        @Option(names = "--profile", description = "profile each server's measured window (redis-client: each "
            + "client JVM's) with async-profiler (perf_events' cpu-clock, else itimer; Java, native and kernel "
            + "frames): a flame graph per run in <out>/profiles, linked from report.html, and a table of ringwire's and "
            + "netty-epoll's CPU per message by layer (lettuce-ringwire's and lettuce-epoll's per command) with the "
            + "frames where they differ most; the profiler's cost is in every figure, so a profiled run enters no "
            + "verdict")
        boolean profile;

        /** @return how much the terminal shows besides the run lines and the summary */
        LabReport.Detail detail() {
            return quiet ? LabReport.Detail.QUIET : wide ? LabReport.Detail.WIDE : LabReport.Detail.COMPACT;
        }

        LoadGenerator.Engine engine() {
            return generator.equals("best") ? LoadGenerator.Engine.best() : LoadGenerator.Engine.of(generator);
        }

        Experiment.Settings settings() {
            return settings(servers == null ? Competitor.standard()
                : servers.stream().map(Competitor::of).toList());
        }

        /**
         * @return the settings for a workload at a fixed offered load: without --servers, ringwire-minwait runs
         *         beside ringwire, since the minimum wait's trade (CPU against latency) shows fairly only where
         *         every server does the same work
         */
        Experiment.Settings fixedLoadSettings() {
            return servers == null ? settings(Competitor.withMinWait(Competitor.standard())) : settings();
        }

        /** What building the C servers did, or why they are left out: the run's notes show it. */
        final List<String> serverNotes = new ArrayList<>();

        Experiment.Settings settings(List<Competitor> list) {
            list = Planning.usable(list, serverNotes::add); // c-io_uring and c-epoll where gcc and liburing are
            return new Experiment.Settings(list, rounds, warmup, maxWarmup == null ? DEFAULT_MAX_WARMUP : maxWarmup,
                seconds, threads, new ServerJvm(nettyUnsafe), engine());
        }

        /** @return {@code s} with http's longest warm-up, {@link #HTTP_MAX_WARMUP}, unless --max-warmup was given */
        Experiment.Settings httpSettings(Experiment.Settings s) {
            return maxWarmup == null ? s.withMaxWarmup(HTTP_MAX_WARMUP) : s;
        }

        /**
         * @return {@code s} with rpc-backend's longest warm-up, {@link #RPC_BACKEND_MAX_WARMUP}, unless --max-warmup
         *         was given
         */
        Experiment.Settings rpcBackendSettings(Experiment.Settings s) {
            return maxWarmup == null ? s.withMaxWarmup(RPC_BACKEND_MAX_WARMUP) : s;
        }

        /**
         * @return {@code s} with redis-client's longest warm-up, {@link #CLIENT_MAX_WARMUP}, unless --max-warmup was
         *         given
         */
        Experiment.Settings clientSettings(Experiment.Settings s) {
            return maxWarmup == null ? s.withMaxWarmup(CLIENT_MAX_WARMUP) : s;
        }
    }

    /**
     * The longest warm-up, seconds, unless a workload needs more (http, rpc-backend, redis-client) or --max-warmup says
     * otherwise.
     */
    static final double DEFAULT_MAX_WARMUP = 6;

    /**
     * The longest warm-up of the http workload, seconds. Its warm-up is a series of one-second wrk runs, each opening
     * and closing every connection; the first closes take branches the hot compiled code never saw, and C2 compiles
     * the event loop's largest methods again, on the server's one core beside a saturated loop. At 1,024 connections
     * the server's JIT threads went quiet after 16-20 s on Ringwire and 6.5-18 s on Netty epoll. With at most 6 s,
     * nearly every window opened at the limit, and in 2 of Ringwire's 4 windows there its compiler threads took 0.37
     * of the core: 45-66k requests/s against 96-102k, p99 39-44 ms against 16-24 (docs/benchmarks.md, "http").
     */
    static final double HTTP_MAX_WARMUP = 20;

    /**
     * The longest warm-up of rpc-backend, seconds. Its frame decoder and the allocator's chunk cache take rare
     * branches for seconds after the load starts (a frame split across two receives, a chunk released and taken
     * again), each an uncommon trap that C2 answers by compiling the decoder's and the allocator's largest methods
     * again; at 6 s the window opened at the limit and Ringwire's compiler threads took 0.07-0.15 of the server's core
     * in it (docs/benchmarks.md, "rpc-backend"). The window opens as soon as they are quiet, so a server that is done
     * sooner is measured sooner.
     */
    static final double RPC_BACKEND_MAX_WARMUP = 20;

    /**
     * The longest warm-up of redis-client, seconds. The measured JVM there is the client: Lettuce, Netty and the lab's
     * reply check all compile in it, on its one core beside the load. At 6 s every client JVM's window opened at the
     * limit with its compiler threads still at 0.19-0.49 of that core (docs/benchmarks.md, "redis-client").
     */
    static final double CLIENT_MAX_WARMUP = 20;

    /** The default suite's fixed echo load, msgs/s: below every server's capacity on two shared cores. */
    static final double DEFAULT_FIXED_RATE = 20_000;

    /**
     * {@code all}'s paced http load, requests/s over 256 connections: a write every 8.5 ms each (wrk paces well above
     * 5 ms), a third of what a server reaches at wrk's full speed here, where the servers' own costs compare.
     */
    static final double DEFAULT_HTTP_RATE = 30_000;

    /** The servers of {@code --quick}: Ringwire against Netty's two native transports. */
    public static final List<Competitor> QUICK_SERVERS = List.of(Competitor.RINGWIRE, Competitor.NETTY_IO_URING,
        Competitor.NETTY_EPOLL);

    @Mixin
    Common common;

    @Option(names = "--quick", description = "a first look in about 2 minutes: echo at a fixed 20k msgs/s and "
        + "rpc-backend, on ringwire, netty-io_uring and netty-epoll (unless --servers), 2 rounds")
    boolean quick;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        quietSlf4j();
        CommandLine cl = new CommandLine(new Lab());
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            StringBuilder why = new StringBuilder("lab: " + e.getMessage());
            for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                why.append(": ").append(c); // the cause's own words (a connection's failure, an errno)
            }
            line.getErr().println(why);
            return 2;
        });
        System.exit(cl.execute(args));
    }

    /**
     * SLF4J's API is on the class path for Lettuce (redis-client), with no provider: it would warn on first use, in the
     * lab's terminal output. Its no-operation provider, named, keeps it quiet; Netty then logs through
     * java.util.logging as before (it declines SLF4J's no-operation factory). A setting given on the command line
     * stays.
     */
    public static void quietSlf4j() {
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
            System.setProperty("slf4j.internal.verbosity", "WARN");
        }
    }

    @Override
    public Integer call() throws Exception {
        return execute(spec, common, suite(), new ArrayList<>(), false);
    }

    /** @return the default suite, or with --quick its first look */
    public List<Experiment> suite() {
        if (quick) {
            Experiment.Settings s = common.servers == null ? common.settings(QUICK_SERVERS) : common.settings();
            return List.of(Workloads.echo(s, 500, 128, 1, DEFAULT_FIXED_RATE),
                Workloads.rpcBackend(common.rpcBackendSettings(s), 32, 1000, 32, 128));
        }
        Experiment.Settings s = common.settings();
        return List.of(
            // the verdict first at the same work for all (a fixed offered load below every server's capacity),
            // then at saturation
            Workloads.echo(common.fixedLoadSettings(), 500, 128, 1, DEFAULT_FIXED_RATE),
            Workloads.echo(s, 500, 128, 1, 0),
            Workloads.rpcBackend(common.rpcBackendSettings(s), 32, 1000, 32, 128),
            Workloads.singleStream(s, 1024, 16384));
    }

    /**
     * Runs the experiments (and the cost model if asked), prints the tables and the summary, writes the report.
     *
     * @return 0, or 1 when any run had a mismatch or an error
     */
    static int execute(CommandLine.Model.CommandSpec spec, Common common, List<Experiment> experiments,
                       List<String> notes, boolean costModel) throws IOException, InterruptedException {
        return execute(spec, common, experiments, notes, costModel, null);
    }

    /** What a command adds to the lab's output once every run is in (the sweep's charts and counts). */
    interface Addendum {
        /** @return lines for the terminal, printed after the tables */
        String text(List<RunResult> runs);

        /** @return a section for report.html, after the workloads' */
        String html(List<RunResult> runs);
    }

    /**
     * {@link #execute(CommandLine.Model.CommandSpec, Common, List, List, boolean)} with {@code addendum}'s text and
     * section added to the output, when not null.
     */
    static int execute(CommandLine.Model.CommandSpec spec, Common common, List<Experiment> experiments,
                       List<String> notes, boolean costModel, Addendum addendum)
        throws IOException, InterruptedException {
        if (common.quiet && common.wide) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--quiet and --wide exclude each other");
        }
        Progress progress = new Progress(System.out, experiments.stream().mapToInt(Experiment::runs).sum(),
            common.wide);
        String command = "./ringwire lab " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        progress.note(command + "  (" + (ServerProcess.canPin() ? "servers on CPU 1, load generator on CPU 0"
            : "unpinned: one core or no taskset") + ")");
        notes.addAll(0, common.serverNotes);
        notes.forEach(progress::note);
        if (common.profile) {
            Profiling profiling = Profiling.into(common.out);
            experiments.forEach(e -> e.profiledBy(profiling));
            boolean clients = experiments.stream().allMatch(e -> e.settings().servers().stream()
                .allMatch(Competitor::client));
            progress.note("PROFILED: async-profiler samples every " + (clients ? "client JVM" : "server")
                + "'s window (" + common.out.resolve(Profiling.DIR) + "); its cost is in every figure, and no verdict "
                + "is given");
        }
        List<RunResult> runs = new ArrayList<>();
        for (Experiment e : experiments) {
            runs.addAll(e.run(progress));
        }
        CostModel.Report model = null;
        if (costModel) {
            progress.note("cost-model: timing getppid, write/read and io_uring SENDs at batch 1..64 ...");
            CostModel.Costs costs = CostModel.measure(128, 100_000);
            Summary echo = Summary.of(runs).stream().filter(x -> x.workload().equals("echo")).findFirst()
                .orElse(null);
            model = LabReport.costModel(costs, echo);
        }
        List<ConnectionCost> costs = experiments.stream().flatMap(e -> e.connectionCosts().stream()).toList();
        LabReport report = LabReport.of(command, common.settings().jvm(), common.engine(), notes, runs, model,
            costs, experiments.stream().flatMap(e -> e.profiles().stream()).toList());
        Path html = report.write(common.out);
        System.out.print(report.text(common.detail()));
        if (addendum != null) {
            String page = java.nio.file.Files.readString(html);
            int end = page.lastIndexOf("</body>");
            java.nio.file.Files.writeString(html, page.substring(0, end) + addendum.html(runs) + page.substring(end));
            System.out.print(addendum.text(runs));
        }
        List<RunResult> rehearsals = experiments.stream().flatMap(e -> e.rehearsals().stream()).toList();
        for (RunResult r : rehearsals) {
            if (r.mismatches() + r.errors() > 0) {
                System.out.printf(Locale.ROOT, "FAILED: the unmeasured rehearsal of %s on %s had %d mismatched "
                    + "bytes and %d errors%n", r.workload(), r.server(), r.mismatches(), r.errors());
            }
        }
        // last, so that it is what the terminal shows when the lab is done
        System.out.print(report.summaryText(html.toAbsolutePath()));
        return java.util.stream.Stream.concat(runs.stream(), rehearsals.stream())
            .anyMatch(r -> r.mismatches() > 0 || r.errors() > 0) ? 1 : 0;
    }

    /** What every workload command has: the shared options, and running its experiments. */
    abstract static class WorkloadCommand implements Callable<Integer> {
        @Mixin
        Common common;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /** @return the settings of a workload whose codec is Netty's: by default the servers on a Netty transport */
        Experiment.Settings nettySettings() {
            return common.servers == null ? common.settings(Competitor.nettyTransports()) : common.settings();
        }

        /** @return the exit code of running {@code experiments} (and the cost model if asked) */
        int run(List<Experiment> experiments, List<String> notes, boolean costModel) throws Exception {
            return execute(spec, common, experiments, notes, costModel);
        }
    }

    @Command(name = "echo", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"Echo as in " + Sources.NETTY + ": connections echo messages; closed loop (each keeps --depth "
            + "in flight) or, with --rate, open loop at a fixed rate with latency from the scheduled send (no "
            + "coordinated omission).",
            "Lists in --conns and --size make sweeps (every size × every connection count), e.g. "
                + "--conns 1,100,1000,10000 --size 64,1024,16384,65536.",
            "Source: " + Sources.NETTY_CITED + ", which echoed 128-byte messages over 500 connections."})
    static final class Echo extends WorkloadCommand {
        @Option(names = "--conns", split = ",", defaultValue = "500", description = "connections, or a list "
            + "(default: ${DEFAULT-VALUE})")
        List<Integer> conns;

        @Option(names = "--size", split = ",", defaultValue = "128", description = "bytes per message (≥ 12), "
            + "or a list (default: ${DEFAULT-VALUE})")
        List<Integer> sizes;

        @Option(names = "--depth", defaultValue = "1", description = "closed loop: messages in flight per "
            + "connection (default: ${DEFAULT-VALUE})")
        int depth;

        @Option(names = "--rate", defaultValue = "0", description = "open loop: messages per second over all "
            + "connections; 0 = closed loop (default: ${DEFAULT-VALUE})")
        double rate;

        @Override
        public Integer call() throws Exception {
            return run(Workloads.echoSweep(rate > 0 ? common.fixedLoadSettings() : common.settings(), conns, sizes,
                depth, rate),
                new ArrayList<>(), false);
        }
    }

    @Command(name = "rpc-backend", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"The back end of " + Sources.RSOCKET + ": a few dozen connections, each multiplexing many "
            + "concurrent finite streams; a stream sends its next message when the previous answer returns, and a "
            + "finished stream is replaced by a new one (closed loop).",
            "Framing: [4-byte length][4-byte stream][4-byte sequence][payload], echoed frame by frame "
                + "(LengthFieldBasedFrameDecoder on the Netty servers).",
            "Source: " + Sources.RSOCKET_CITED + "."})
    static final class RpcBackend extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "32", description = "connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--streams", defaultValue = "1000", description = "concurrent streams per connection "
            + "(default: ${DEFAULT-VALUE})")
        int streams;

        @Option(names = "--messages", defaultValue = "32", description = "messages per stream "
            + "(default: ${DEFAULT-VALUE})")
        int messages;

        @Option(names = "--size", defaultValue = "128", description = "bytes per frame (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--pause-per-message", description = "the Netty servers turn autoRead off for every frame "
            + "and on again once its echo is written (reactive back-pressure, reactor-netty issue 3833); run it "
            + "with and without to see what the pattern costs each transport")
        boolean pausing;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.rpcBackend(common.rpcBackendSettings(common.settings()), conns, streams,
                messages, size, pausing)), new ArrayList<>(), false);
        }
    }

    @Command(name = "rpc-frontend", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"The front end of " + Sources.RSOCKET + ": thousands of connections with long-lived streams, "
            + "messages sent at a fixed total rate (open loop), optionally in batches per connection. The figure that "
            + "matters is the server's CPU at that fixed offered load, as in the evaluation; latency runs from the "
            + "scheduled send.",
            "Source: " + Sources.RSOCKET_CITED + "."})
    static final class RpcFrontend extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "2000", description = "connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--streams", defaultValue = "30", description = "streams per connection "
            + "(default: ${DEFAULT-VALUE})")
        int streams;

        @Option(names = "--rate", defaultValue = "20000", description = "messages per second, all connections "
            + "together (default: ${DEFAULT-VALUE})")
        double rate;

        @Option(names = "--batch", defaultValue = "1", description = "messages a connection sends at once "
            + "(the RSocket evaluation's periodic batches: 10) (default: ${DEFAULT-VALUE})")
        int batch;

        @Option(names = "--size", defaultValue = "128", description = "bytes per frame (default: ${DEFAULT-VALUE})")
        int size;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.rpcFrontend(common.fixedLoadSettings(), conns, streams, rate, batch,
                size)), new ArrayList<>(), false);
        }
    }

    @Command(name = "single-stream", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"The single stream of " + Sources.RSOCKET + ": one connection, a flood of frames with a large "
            + "window of messages in flight; throughput, and the server's peak heap, pooled direct memory and GC (the "
            + "evaluation saw 3.7 GB of heap on Netty's incubator io_uring against epoll's 35 MB).",
            "Source: " + Sources.RSOCKET_CITED + "."})
    static final class SingleStream extends WorkloadCommand {
        @Option(names = "--size", defaultValue = "1024", description = "bytes per frame (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--window", defaultValue = "16384", description = "frames in flight "
            + "(default: ${DEFAULT-VALUE})")
        int window;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.singleStream(common.settings(), size, window)),
                new ArrayList<>(), false);
        }
    }

    @Command(name = "udp-echo", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"UDP echo: many clients, small datagrams, each echoed to its sender; every echo byte-checked, "
            + "a datagram unanswered for 200 ms counted as lost (errors). The Netty servers bind one datagram "
            + "channel (one event loop); the blocking servers receive and send on one thread."})
    static final class UdpEcho extends WorkloadCommand {
        @Option(names = "--clients", defaultValue = "64", description = "client sockets (default: ${DEFAULT-VALUE})")
        int clients;

        @Option(names = "--size", defaultValue = "128", description = "bytes per datagram, 16 to 65000 "
            + "(default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--depth", defaultValue = "1", description = "datagrams in flight per client "
            + "(default: ${DEFAULT-VALUE})")
        int depth;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.udpEcho(common.settings(), clients, size, depth)), new ArrayList<>(),
                false);
        }
    }

    @Command(name = "quic", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"QUIC echo: Netty's QUIC codec (quiche) on each Netty transport's UDP channel, the server "
            + "sending with GSO where the transport has it (Ringwire, Netty epoll and io_uring; "
            + "-Dringwire.examples.quicGro=true in RINGWIRE_LAB_SERVER_OPTS also receives with UDP_GRO on Ringwire); "
            + "N connections of one stream each, messages echoed on the stream and byte-checked. The client is Netty "
            + "epoll sending with GSO. Netty-based servers only (default: ringwire, netty-io_uring, netty-epoll, "
            + "netty-nio)."})
    static final class Quic extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "16", description = "QUIC connections, one stream each "
            + "(default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--size", defaultValue = "1024", description = "bytes per message (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--depth", defaultValue = "64", description = "messages in flight per stream "
            + "(default: ${DEFAULT-VALUE})")
        int depth;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.quic(nettySettings(), conns, size, depth)), new ArrayList<>(), false);
        }
    }

    @Command(name = "tls-echo", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"Echo behind TLS 1.3: Netty's SslHandler in front of the echo handler on each Netty transport "
            + "(OpenSSL's engine from netty-tcnative where it loads, the JDK's otherwise; "
            + "-Dringwire.examples.tlsProvider=jdk|openssl in RINGWIRE_LAB_SERVER_OPTS and the lab's JVM picks one), "
            + "every echoed byte checked. The client is Netty's SslHandler on Netty epoll, one thread, the same "
            + "engine. Netty-based servers only (default: ringwire, netty-io_uring, netty-epoll, netty-nio)."})
    static final class TlsEcho extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "64", description = "TLS connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--size", defaultValue = "1024", description = "bytes per message (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--depth", defaultValue = "4", description = "messages in flight per connection "
            + "(default: ${DEFAULT-VALUE})")
        int depth;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.tlsEcho(nettySettings(), conns, size, depth)), new ArrayList<>(), false);
        }
    }

    @Command(name = "domain-echo", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"Echo over Unix domain stream sockets: N connections × size × messages in flight to each "
            + "server's domain server channel (the blocking servers: a thread per connection), every byte checked."})
    static final class DomainEcho extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "500", description = "connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--size", defaultValue = "128", description = "bytes per message (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--depth", defaultValue = "1", description = "messages in flight per connection "
            + "(default: ${DEFAULT-VALUE})")
        int depth;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.domainEcho(common.settings(), conns, size, depth)), new ArrayList<>(),
                false);
        }
    }

    @Command(name = "files", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"File serving: connections each fetching a file again and again, every byte checked. The "
            + "Netty servers answer with a DefaultFileRegion (sendfile on the native transports when the region is "
            + "made from a File); the blocking servers copy the file to the socket."})
    static final class Files extends WorkloadCommand {
        @Option(names = "--conns", defaultValue = "16", description = "connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--size", defaultValue = "1048576", description = "bytes per file (default: ${DEFAULT-VALUE})")
        long size;

        @Option(names = "--file-channel", description = "regions made from a FileChannel instead of a File "
            + "(Ringwire then copies: the JDK keeps the descriptor private)")
        boolean fileChannel;

        @Override
        public Integer call() throws Exception {
            return run(List.of(Workloads.files(common.settings(), conns, size, fileChannel)), new ArrayList<>(),
                false);
        }
    }

    @Command(name = "conns", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"The front end of " + Sources.RSOCKET + " at scale: N mostly idle connections, each sending "
            + "one small message every --interval seconds (open loop), on every server. Besides CPU at that load and "
            + "latency, each server's memory per connection: live heap after a full GC and memory committed outside "
            + "the heap (Native Memory Tracking), with the connections open minus before them (after a short priming "
            + "load), split into the transport's own classes, the rest of Netty, and the JDK's; and the set-up rate.",
            "Above 4,096 connections the load generator connects from 127.0.0.1, 127.0.0.2, ... (4,096 each). The "
                + "lab raises its open-file limit (and so the servers') where it may; blocking-platform is left out "
                + "when a thread per connection would pass the kernel's thread or pid limit.",
            "ringwire-direct (Ringwire with direct descriptors: no fd per connection) runs at every count, on as "
                + "many event loops as its fixed-file tables need (each holds as many as the open-file limit); a "
                + "server that needs an fd per connection runs at most as many as the limit allows, and its row says "
                + "so. Beyond the limit the load generator holds its connections in direct descriptors too.",
            "Source: " + Sources.RSOCKET_CITED + ", whose front end sent a message every 10 to 100 s on each of "
                + "thousands of connections."})
    static final class Conns extends WorkloadCommand {
        @Option(names = "--conns", split = ",", defaultValue = "1000,10000", description = "connections, a list "
            + "(default: ${DEFAULT-VALUE}); up to 100000 and more where the limits allow")
        List<Integer> conns;

        @Option(names = "--size", defaultValue = "64", description = "bytes per message (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--interval", defaultValue = "30", description = "seconds between one connection's "
            + "messages; the RSocket evaluation's front end: 10 to 100. The measured window is one interval unless "
            + "--seconds says otherwise (default: ${DEFAULT-VALUE})")
        double interval;

        @Override
        public Integer call() throws Exception {
            List<String> notes = new ArrayList<>();
            // one interval by default: every connection sends once in the window
            Experiment.Settings s = spec.commandLine().getParseResult().hasMatchedOption("--seconds")
                ? common.settings() : common.settings().withSeconds(interval);
            return run(Planning.conns(s, conns, size, interval, notes), notes, false);
        }
    }

    @Command(name = "redis", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"As in " + Sources.CRITIQUE + ": the real redis-benchmark (Debian redis-tools; installed with "
            + "apt-get when run as root, else this workload is skipped with a note) against a SET/GET server on each "
            + "transport: Netty's redis codec on the Netty servers, a small RESP reader on the blocking ones.",
            "Source: " + Sources.CRITIQUE_CITED + ", which ran redis-benchmark SET with 1 KiB values and 10 and "
                + "50 clients against Netty's redis codec."})
    static final class Redis extends WorkloadCommand {
        @Option(names = "--clients", split = ",", defaultValue = "10,50", description = "redis-benchmark "
            + "connections, a list (default: ${DEFAULT-VALUE})")
        List<Integer> clients;

        @Option(names = "--size", defaultValue = "1024", description = "value bytes (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--command", defaultValue = "set", description = "set or get (default: ${DEFAULT-VALUE})")
        String command;

        @Override
        public Integer call() throws Exception {
            List<String> notes = new ArrayList<>();
            List<Experiment> e = Workloads.redis(common.settings(), command, clients, size, notes::add);
            return run(e, notes, false);
        }
    }

    @Command(name = "http", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"HTTP/1.1 \"Hello, World!\" as in TechEmpower's plaintext test, driven by wrk (one thread, "
            + "keep-alive; Debian's wrk, installed with apt-get when run as root, else this workload is skipped with "
            + "a note): Netty's HTTP codec on the Netty servers, a minimal request reader on the blocking ones. "
            + "Requests/s, latency percentiles (wrk's, per request or per pipelined batch) and server CPU per "
            + "request. At wrk's full speed the server and wrk each take about a core, and a server's CPU per request "
            + "is then its core over the rate the pair reached; --rate paces wrk to a fixed load, where the servers' "
            + "own costs compare."})
    static final class Http extends WorkloadCommand {
        @Option(names = "--conns", split = ",", defaultValue = "64,256,1024", description = "wrk connections, a "
            + "list (default: ${DEFAULT-VALUE})")
        List<Integer> conns;

        @Option(names = "--pipeline", split = ",", defaultValue = "1,16", description = "requests per write, a "
            + "list; 1 is no pipelining (default: ${DEFAULT-VALUE})")
        List<Integer> pipeline;

        @Option(names = "--rate", defaultValue = "0", description = "requests per second over all connections: each "
            + "connection pauses before each write (wrk's delay hook, calibrated in three one-second runs after the "
            + "warm-up) so that together they offer this load; 0: as fast as the server answers (default: "
            + "${DEFAULT-VALUE})")
        double rate;

        @Override
        public Integer call() throws Exception {
            List<String> notes = new ArrayList<>();
            Experiment.Settings s = rate > 0 ? common.fixedLoadSettings() : common.settings();
            return run(Workloads.http(common.httpSettings(s), conns, pipeline, rate, notes::add), notes, false);
        }
    }

    @Command(name = "cost-model", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"Measures " + Sources.COST_MODEL + "'s s "
            + "(user/kernel switch), w (kernel send/recv work) and t (io_uring's per-operation cost at batch 1) on "
            + "this machine, the cost per send at batch n = 1..64, then runs echo 500 × 128 B on ringwire and "
            + "netty-epoll and prints the model's prediction (from Ringwire's observed n, SQEs per enter) next to the "
            + "measured CPU ratio.",
            "Source: " + Sources.COST_MODEL_CITED + ": s + w per send or receive for epoll, (t + s) / n for "
                + "io_uring."})
    static final class CostModelCommand extends WorkloadCommand {
        @Override
        public Integer call() throws Exception {
            Experiment.Settings s = common.servers == null
                ? common.settings(List.of(Competitor.RINGWIRE, Competitor.NETTY_EPOLL)) : common.settings();
            return run(List.of(Workloads.echo(s, 500, 128, 1, 0)), new ArrayList<>(), true);
        }
    }

    @Command(name = "all", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        sortOptions = false,
        description = {"Every workload with its defaults: echo, echo open loop at 20k msgs/s, rpc-backend, "
            + "rpc-frontend, single-stream, domain-echo, udp-echo, files, quic and tls-echo (on the Netty-based "
            + "servers among those chosen), redis (10 and 50 clients), http (256 connections, at wrk's full speed and "
            + "paced to 30k requests/s) and the cost model. About 35 minutes with the default 2 rounds."})
    static final class All extends WorkloadCommand {
        @Override
        public Integer call() throws Exception {
            Experiment.Settings s = common.settings();
            List<String> notes = new ArrayList<>();
            List<Experiment> e = new ArrayList<>(List.of(
                Workloads.echo(s, 500, 128, 1, 0),
                Workloads.echo(common.fixedLoadSettings(), 500, 128, 1, 20_000),
                Workloads.rpcBackend(common.rpcBackendSettings(s), 32, 1000, 32, 128),
                Workloads.rpcFrontend(common.fixedLoadSettings(), 2000, 30, 20_000, 1, 128),
                Workloads.singleStream(s, 1024, 16384),
                Workloads.domainEcho(s, 500, 128, 1),
                Workloads.udpEcho(s, 64, 128, 1),
                Workloads.files(s, 16, 1 << 20, false)));
            List<Competitor> netty = s.servers().stream().filter(Competitor.nettyTransports()::contains).toList();
            if (!netty.isEmpty()) { // their codecs are Netty's
                e.add(Workloads.quic(s.withServers(netty), 16, 1024, 64));
                e.add(Workloads.tlsEcho(s.withServers(netty), 64, 1024, 4));
            }
            e.addAll(Workloads.redis(s, "set", List.of(10, 50), 1024, notes::add));
            e.addAll(Workloads.http(common.httpSettings(s), List.of(256), List.of(1), 0, notes::add));
            e.addAll(Workloads.http(common.httpSettings(common.fixedLoadSettings()), List.of(256), List.of(1),
                DEFAULT_HTTP_RATE, notes::add));
            return run(e, notes, true);
        }
    }

    /** Two results.json side by side. */
    @Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        description = {"Compares two results.json (e.g. before and after a change): per workload and server, the "
            + "ratio new/old of server CPU per message and of the rate, with a 95 %% bootstrap interval over the runs "
            + "and whether the change is measurable (the runs' min-max ranges do not overlap)."})
    static final class CompareCommand implements Callable<Integer> {
        @CommandLine.Parameters(index = "0", paramLabel = "OLD", description = "the baseline results.json")
        Path older;

        @CommandLine.Parameters(index = "1", paramLabel = "NEW", description = "the results.json to judge")
        Path newer;

        @Override
        public Integer call() throws IOException {
            System.out.print(Compare.table(Compare.read(older), Compare.read(newer)));
            return 0;
        }
    }

    /** A long mixed run: leaks and drift. */
    @Command(name = "soak", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class, sortOptions = false,
        description = {"A long mixed run against one server (RPC streams, many slow connections at a fixed rate, "
            + "connections opened and closed one after the other; on a Netty transport, every channel type from one "
            + "server process: UDP, a Unix domain socket, files, TLS and QUIC too), a row every sample: "
            + "throughput, errors, the "
            + "server's RSS, descriptors, heap, Netty direct memory and the binding's native memory. Exit code 1 if "
            + "any byte or connection was lost, descriptors did not come back after a period, native memory moved, or "
            + "RSS kept growing in the second half."})
    static final class SoakCommand implements Callable<Integer> {
        @Option(names = "--server", defaultValue = "ringwire", description = "which server (default: "
            + "${DEFAULT-VALUE})")
        String server;

        @Option(names = "--minutes", defaultValue = "10", description = "how long, in samples of --sample-seconds "
            + "each (a sample's connection set-up adds to it; default: ${DEFAULT-VALUE})")
        double minutes;

        @Option(names = "--sample-seconds", defaultValue = "30", description = "seconds per sample "
            + "(default: ${DEFAULT-VALUE})")
        double sampleSeconds;

        @Override
        public Integer call() throws Exception {
            Soak soak = new Soak(Competitor.of(server), minutes, sampleSeconds, System.out);
            List<String> problems = soak.problems(soak.run());
            System.out.println(problems.isEmpty() ? "soak: flat: no error, descriptors and native memory back after "
                + "every period, RSS not growing" : "soak: " + String.join("; ", problems));
            return problems.isEmpty() ? 0 : 1;
        }
    }

    /** The kernel's io_uring features. */
    @Command(name = "probe", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
        description = "What this kernel's io_uring offers: "
        + "setup flags, features, opcodes, and multishot accept/recv and buffer rings tried live on loopback.")
    static final class ProbeCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            Probe.main(new String[0]);
            return 0;
        }
    }
}
