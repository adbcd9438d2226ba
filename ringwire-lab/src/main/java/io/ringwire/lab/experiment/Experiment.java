package io.ringwire.lab.experiment;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.load.Driver;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.MemorySnapshot;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.server.SoftwareCounters;
import io.ringwire.lab.results.Measurement;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.RunResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One workload with one set of parameters, run on every server: each run on a fresh server JVM (pinned to CPU 1 when
 * there are two cores), an unmeasured warm-up, a measured window, servers alternating A B C / C B A across rounds.
 */
public final class Experiment {
    /**
     * How to run.
     *
     * @param servers       who competes
     * @param rounds        rounds; the order of servers reverses every other round
     * @param warmupSeconds unmeasured seconds at least before each window
     * @param maxWarmupSeconds unmeasured seconds at most: between the two, the window opens once the server's JIT
     *                      compiler threads are quiet ({@link Warmup})
     * @param seconds       the measured window
     * @param threads       event-loop threads of the Netty servers
     * @param jvm           the JVM flags every server gets
     * @param generator     how the lab's load generator does its I/O
     */
    public record Settings(List<Competitor> servers, int rounds, double warmupSeconds, double maxWarmupSeconds,
                           double seconds, int threads, ServerJvm jvm, LoadGenerator.Engine generator) {
        public Settings {
            if (servers.isEmpty() || rounds < 1 || warmupSeconds < 0 || seconds <= 0 || threads < 1) {
                throw new IllegalArgumentException(
                    "need servers, rounds ≥ 1, warm-up ≥ 0, seconds > 0, threads ≥ 1: " + this);
            }
        }

        /** Settings with the default server JVM flags and the best load generator this kernel allows. */
        public Settings(List<Competitor> servers, int rounds, double warmupSeconds, double maxWarmupSeconds,
                        double seconds, int threads) {
            this(servers, rounds, warmupSeconds, maxWarmupSeconds, seconds, threads, ServerJvm.DEFAULT,
                LoadGenerator.Engine.best());
        }

        /** @return the same settings with other servers */
        public Settings withServers(List<Competitor> others) {
            return new Settings(others, rounds, warmupSeconds, maxWarmupSeconds, seconds, threads, jvm, generator);
        }

        /** @return the same settings with another number of event-loop threads */
        Settings withThreads(int n) {
            return new Settings(servers, rounds, warmupSeconds, maxWarmupSeconds, seconds, n, jvm, generator);
        }

        /** @return the same settings with another longest warm-up */
        public Settings withMaxWarmup(double maxSeconds) {
            return new Settings(servers, rounds, warmupSeconds, maxSeconds, seconds, threads, jvm, generator);
        }

        /** @return the same settings with another measured window */
        public Settings withSeconds(double window) {
            return new Settings(servers, rounds, warmupSeconds, maxWarmupSeconds, window, threads, jvm, generator);
        }

        /** @return runs it makes per experiment */
        int runs() {
            return servers.size() * rounds;
        }
    }

    /** Unmeasured seconds a primed run's priming load lasts at least. */
    static final double PRIME_MIN_SECONDS = 2.0;
    /** ... and at most, if the server's JIT compiler does not go quiet before. */
    static final double PRIME_MAX_SECONDS = 10.0;
    /** Connections of the priming load. */
    static final int PRIME_CONNS = 64;

    /**
     * The conns workload's extra measurement: after the priming load, a memory snapshot with no connection open; at
     * the window's end, another with every connection open.
     */
    static final class PerConnection {
        private final int conns;
        private volatile double connectSeconds = Double.NaN;
        /** The server's open descriptors with no connection, after the priming load. */
        private long idleFds;

        /** @param conns connections the load opens */
        PerConnection(int conns) {
            this.conns = conns;
        }

        /** The driver says how long opening the connections took. */
        void connected(double seconds) {
            connectSeconds = seconds;
        }

        /** Notes the server's descriptors with no connection open (after the priming load has closed its own). */
        void idle(ServerProcess server) {
            idleFds = ProcessStats.openFds(server.pid());
        }

        /**
         * Waits (at most 30 s) until the server holds every connection: a connect completes once the kernel's
         * handshake does, before the server has accepted it, and the snapshot must count each connection's state.
         * A connection is an fd, or one of the server's direct descriptors (which it reports).
         */
        void awaitAccepted(ServerProcess server, boolean direct) throws InterruptedException {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (ProcessStats.openFds(server.pid()) + (direct ? server.directDescriptors() : 0) < idleFds + conns
                && System.nanoTime() < deadline) {
                Thread.sleep(direct ? 100 : 20);
            }
        }
    }

    private final String workload;
    private final String variant;
    private final Protocol protocol;
    private final Settings settings;
    private final Driver driver;
    /** Makes each run instead of {@link #runOnce}, or null. */
    private final Runner runner;
    private PerConnection perConnection;
    private int primeSize;
    /** The longest priming, seconds ({@link #primingAtMost}). */
    private double primeMaxSeconds = PRIME_MAX_SECONDS;
    private String generatorKind;
    /** Whether {@link #generatorKind} is rehearsed in the lab's JVM ({@link GeneratorRehearsal}), not on a server. */
    private boolean rehearsedInProcess;
    private final List<ConnectionCost> connectionCosts = new ArrayList<>();
    /** Reads more of each server at its window's edges, or null. */
    private WindowProbe probe;

    /** Reads what a workload needs beyond the usual from each server at its window's edges (the sweep's counts). */
    public interface WindowProbe {
        /**
         * Called as the window opens, after the server's counters were reset and before its CPU is read; and as it
         * closes, after its CPU was read and it answered STATS (so that nothing read here counts in its CPU).
         *
         * @param server which server
         * @param round  its round (0: a rehearsal)
         * @param pid    its process
         * @param open   true as the window opens, false as it closes
         * @param stats  what the server reported for the window as it closes; empty as it opens
         */
        void edge(Competitor server, int round, long pid, boolean open, Map<String, Double> stats);
    }

    /**
     * @param p what to read at every window's edges
     * @return this experiment
     */
    public Experiment probing(WindowProbe p) {
        this.probe = p;
        return this;
    }
    private final List<RunResult> rehearsals = new ArrayList<>();
    /** {@code --profile}: how every measured run's server (or client) is profiled; null when none is. */
    private Profiling profiling;
    private final List<Profile> profiles = new ArrayList<>();

    /** The generators ({@link #rehearsingGenerator}) that have run in this JVM already. */
    private static final java.util.Set<String> REHEARSED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param workload its name
     * @param variant  its parameters, for tables
     * @param protocol what the servers speak
     * @param settings servers, rounds, timing
     * @param driver   the load
     */
    public Experiment(String workload, String variant, Protocol protocol, Settings settings, Driver driver) {
        for (Competitor c : settings.servers()) {
            if (c.client()) {
                throw new IllegalArgumentException(c.label() + " is a client: it runs in the redis-client workload "
                    + "only, not " + workload);
            }
            if (c.httpOnly() && protocol != Protocol.HTTP) {
                throw new IllegalArgumentException(c.label() + " serves the http workload only, not " + workload);
            }
            if (c.inC() && protocol != Protocol.ECHO && protocol != Protocol.FRAMES && protocol != Protocol.PAUSING) {
                throw new IllegalArgumentException(c.label() + " serves echo and the frame workloads only, not "
                    + workload);
            }
            if (protocol.nettyOnly() && !Competitor.nettyTransports().contains(c)) {
                throw new IllegalArgumentException(c.label() + " does not serve " + workload + ": it runs on "
                    + Competitor.nettyTransports().stream().map(Competitor::label).toList());
            }
        }
        this.workload = workload;
        this.variant = variant;
        this.protocol = protocol;
        this.settings = settings;
        this.driver = driver;
        this.runner = null;
    }

    /**
     * One run made otherwise than by loading a lab server: the redis-client workload's, where the measured process is
     * a client JVM ({@link ClientRuns}).
     */
    public interface Runner {
        /**
         * @param competitor who runs
         * @param round      its round
         * @param profiler   profiles the measured process's window ({@code --profile}), or {@link RunProfiler#NONE}
         * @return the measured run, marked by {@code profiler}
         * @throws IOException          if a process cannot start or answer
         * @throws InterruptedException if interrupted
         */
        RunResult run(Competitor competitor, int round, RunProfiler profiler) throws IOException, InterruptedException;
    }

    /**
     * An experiment whose every run {@code runner} makes; its competitors are clients ({@link Competitor#client()}).
     *
     * @param workload its name
     * @param variant  its parameters, for tables
     * @param settings clients, rounds, timing
     * @param runner   makes each run
     */
    Experiment(String workload, String variant, Settings settings, Runner runner) {
        for (Competitor c : settings.servers()) {
            if (!c.client()) {
                throw new IllegalArgumentException(c.label() + " is a server: " + workload + " runs clients: "
                    + Competitor.lettuceClients().stream().map(Competitor::label).toList());
            }
        }
        this.workload = workload;
        this.variant = variant;
        this.protocol = null;
        this.settings = settings;
        this.driver = null;
        this.runner = runner;
    }

    /**
     * @param p what the conns workload measures besides the usual
     * @return this experiment, measuring memory per connection in every run
     */
    Experiment measuringConnections(PerConnection p) {
        this.perConnection = p;
        return this;
    }

    /**
     * Primes every run's server before its warm-up: {@value #PRIME_CONNS} connections echo {@code size}-byte messages
     * in a closed loop until the server's JIT compiler is quiet ({@value #PRIME_MIN_SECONDS} to
     * {@value #PRIME_MAX_SECONDS} s), then close. At a fixed, low offered rate the warm-up alone does not get the
     * server's code compiled: at 500 msgs/s Ringwire's JIT threads still took 0.03 of a core in the window (Netty
     * epoll's 0.00), under the warm-up's quiet threshold but more than its loop's share of the comparison; and a
     * profile of the conns workload with a 1 s priming found 40 % of the loop's samples in interpreted or C1 frames.
     * Every server of the experiment gets the same priming; its seconds count in the run's warm-up.
     *
     * @param size bytes per priming message, header included (the workload's own size)
     * @return this experiment
     */
    Experiment primed(int size) {
        this.primeSize = size;
        return this;
    }

    /**
     * Ends each run's priming after {@code seconds} at most instead of {@value #PRIME_MAX_SECONDS} (never before
     * {@value #PRIME_MIN_SECONDS}): for a run that needs the priming's load and its place in the warm-up but not a
     * server whose compiler has gone quiet, as the lab's own tests, which judge no figure that compiling would move.
     *
     * @param seconds the longest priming
     * @return this experiment
     */
    Experiment primingAtMost(double seconds) {
        this.primeMaxSeconds = Math.max(PRIME_MIN_SECONDS, seconds);
        return this;
    }

    /**
     * Has the first run of this experiment in the lab's JVM preceded by one unmeasured run of its first server when
     * no experiment has yet run the generator named {@code kind} here: the lab's generators run in its own JVM, on
     * the core its compiler threads share, and a generator's first measured run otherwise had its code compiled by
     * C2 inside the window (udp-echo: the lab's JIT 0.03 cores in the first window, 0.00 after; its p99 800 µs against
     * 406; tls-echo: 0.02, and a faster first run that was the generator's own code). A rehearsal's
     * figures are not in any table, but its mismatches and errors count in the lab's exit code like any run's.
     *
     * @param kind the generator, e.g. {@code udp}
     * @return this experiment
     */
    Experiment rehearsingGenerator(String kind) {
        this.generatorKind = kind;
        this.rehearsedInProcess = false;
        return this;
    }

    /**
     * The same for the lab's main generator ({@link LoadGenerator}), which is rehearsed against an echo server in the
     * lab's own JVM instead ({@link GeneratorRehearsal}: both of its modes, whatever this experiment's is).
     *
     * @return this experiment
     */
    Experiment rehearsingFrameGenerator() {
        this.generatorKind = "frames";
        this.rehearsedInProcess = true;
        return this;
    }

    /**
     * Profiles the measured process of every measured run over its window ({@code --profile}), the server or, in the
     * redis-client workload, the client JVM: async-profiler loaded at the JVM's start, started as the window opens and
     * stopped as it closes ({@link RunProfiler}); each run is marked as profiled, and its profile kept
     * ({@link #profiles}). A rehearsal run is not profiled.
     *
     * @param p where the profiler's library is and where the profiles go
     * @return this experiment
     */
    public Experiment profiledBy(Profiling p) {
        this.profiling = p;
        return this;
    }

    /** @return the profiles of every run so far (empty without {@link #profiledBy}) */
    public List<Profile> profiles() {
        return List.copyOf(profiles);
    }

    /** @return the unmeasured rehearsal runs made so far (at most one) */
    public List<RunResult> rehearsals() {
        return List.copyOf(rehearsals);
    }

    /** @return memory per connection of every run so far (conns workload only; empty otherwise) */
    public List<ConnectionCost> connectionCosts() {
        return List.copyOf(connectionCosts);
    }

    /** @return the workload's name */
    public String workload() {
        return workload;
    }

    /** @return its parameters */
    public String variant() {
        return variant;
    }

    /** @return servers, rounds, timing */
    public Settings settings() {
        return settings;
    }

    /** @return the number of runs */
    public int runs() {
        return settings.runs();
    }

    /**
     * @param progress where each run is announced
     * @return every run, in the order made
     * @throws IOException          if a server cannot start or be loaded
     * @throws InterruptedException if interrupted
     */
    public List<RunResult> run(Progress progress) throws IOException, InterruptedException {
        List<RunResult> results = new ArrayList<>();
        progress.note(String.format(Locale.ROOT, "%s · %s · %d %s%s × %d round%s", workload, variant,
            settings.servers().size(), runner != null ? "client" : "server", settings.servers().size() == 1 ? "" : "s",
            settings.rounds(),
            settings.rounds() == 1 ? "" : "s"));
        if (generatorKind != null && REHEARSED.add(generatorKind)) {
            rehearse(progress);
        }
        for (int round = 1; round <= settings.rounds(); round++) {
            List<Competitor> order = new ArrayList<>(settings.servers());
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            for (Competitor c : order) {
                progress.starting(workload, String.format(Locale.ROOT, "round %d/%d", round, settings.rounds()),
                    c.label());
                RunResult r = null;
                try {
                    r = runner != null ? runner.run(c, round, profiler(c, round)) : runOnce(c, round);
                } finally {
                    if (r == null) {
                        progress.abandoned();
                    }
                }
                progress.finished(shortLine(r), problems(r), oneLine(r));
                results.add(r);
            }
        }
        return results;
    }

    /** The generator's first run in this JVM: unmeasured, in process or on the experiment's first server. */
    private void rehearse(Progress progress) throws IOException, InterruptedException {
        if (rehearsedInProcess) {
            progress.note(String.format(Locale.ROOT, "load generator rehearsed against the lab's own echo server "
                + "(unmeasured, %.1f s)", GeneratorRehearsal.run(settings.generator())));
            return;
        }
        Competitor first = settings.servers().get(0);
        progress.note(String.format(Locale.ROOT, "rehearsal on %s, unmeasured: the %s generator's first run in this "
            + "JVM", first.label(), generatorKind));
        RunResult r = runOnce(first, 0);
        rehearsals.add(r);
        progress.note("        " + shortLine(r));
        if (problems(r) != null) {
            progress.note("        " + problems(r));
        }
    }

    /**
     * @return a run's figures in short, to end its progress line: rate, p99, server CPU per message, and whether
     *         other processes disturbed it
     */
    static String shortLine(RunResult r) {
        return String.format(Locale.ROOT, "%9s/s  p99 %7s µs  %5s µs/msg%s%s", Summary.number("%,.0f", r.rate()),
            Summary.number("%,.0f", r.p99Us()), Summary.number("%.2f", r.serverCpuUsPerMsg()),
            r.contaminated() ? " CONTAMINATED" : "", r.profiled() ? " PROFILED" : "");
    }

    /** @return what went wrong in a run (mismatches, errors, starved connections), or null */
    static String problems(RunResult r) {
        List<String> p = new ArrayList<>();
        if (r.mismatches() + r.errors() > 0) {
            p.add(String.format(Locale.ROOT, "FAILED: %d mismatched bytes, %d errors", r.mismatches(), r.errors()));
        }
        if (r.starved() > 0) {
            p.add(String.format(Locale.ROOT, "%d connection%s starved (answered only after the window)",
                r.starved(), r.starved() == 1 ? "" : "s"));
        }
        return p.isEmpty() ? null : String.join("; ", p);
    }

    static String oneLine(RunResult r) {
        return String.format(Locale.ROOT, "%,.0f/s, p99 %,.0f µs, server %.2f µs CPU/msg (%.2f cores, JIT %.2f; "
                + "the lab's JIT %.2f), heap peak %.0f MiB (live %.0f), %d mismatches, %d errors%s; warm-up %.1f s; "
                + "foreign load %.2f cores%s", r.rate(), r.p99Us(), r.serverCpuUsPerMsg(), r.serverUtil(), r.jitUtil(),
            r.labJitUtil(), r.heapPeakMiB(), r.liveHeapMiB(), r.mismatches(), r.errors(), r.starved() == 0 ? ""
                : String.format(Locale.ROOT, ", %d connections starved (longest wait %.1f s)", r.starved(),
                    r.maxUs() / 1e6),
            r.warmupSeconds(), r.foreignCores(), r.contaminated() ? " (CONTAMINATED)" : "")
            + (r.profiled() ? "; PROFILED (async-profiler sampled the " + (Competitor.client(r.server()) ? "client"
                : "server") + ": no verdict)" : "");
    }

    /** @return what profiles {@code competitor}'s run of {@code round}: nothing without --profile or in a rehearsal */
    private RunProfiler profiler(Competitor competitor, int round) {
        return profiling == null || round == 0 ? RunProfiler.NONE
            : new RunProfiler(profiling, workload, variant, competitor.label(), round, profiles::add);
    }

    private RunResult runOnce(Competitor competitor, int round) throws IOException, InterruptedException {
        RunProfiler profiler = profiler(competitor, round);
        try (ServerProcess server = ServerProcess.start(competitor, protocol, settings.threads(), settings.jvm(),
            profiler.jvmFlags())) {
            long pid = server.pid();
            MemorySnapshot without = null;
            AtomicReference<MemorySnapshot> with = new AtomicReference<>();
            double[] kernel = {Double.NaN, Double.NaN};
            double primeSeconds = primeSize > 0 ? prime(server, settings.generator(), primeSize, primeMaxSeconds)
                : 0;
            if (perConnection != null) {
                perConnection.idle(server);
                without = server.memory();
                kernel[0] = ProcessStats.kernelSocketBytes();
            }
            double[] cpu = new double[2];
            double[] machine = new double[2];
            double[] lab = new double[2];
            long self = ProcessHandle.current().pid();
            double[] jit = new double[2];
            double[] labJit = new double[2];
            long[] wall = new long[2];
            SoftwareCounters.Snapshot[] counters = new SoftwareCounters.Snapshot[2];
            int[] edges = {0};
            AtomicReference<Map<String, Double>> stats = new AtomicReference<>(Map.of());
            AtomicReference<Map<String, Double>> live = new AtomicReference<>(Map.of());
            Warmup warmup = new Warmup(settings.warmupSeconds(), settings.maxWarmupSeconds(), pid);
            Measurement m = driver.drive(server.address(), warmup::over, () -> {
                int i = Math.min(edges[0]++, 1);
                if (i == 0) {
                    server.resetStats();
                    profiler.windowOpens(server); // before the CPU clock is read: starting it is not the window's work
                }
                if (probe != null && i == 0) {
                    probe.edge(competitor, round, pid, true, Map.of());
                }
                cpu[i] = ProcessStats.cpuSeconds(pid);
                machine[i] = ProcessStats.machineBusySeconds();
                // with its finished children: an external generator (redis-benchmark) is the lab's load, not foreign
                lab[i] = ProcessStats.cpuSecondsWithChildren(self);
                jit[i] = ProcessStats.jitCpuSeconds(pid);
                labJit[i] = ProcessStats.jitCpuSeconds(self);
                wall[i] = System.nanoTime();
                // after the clocks, which it would otherwise set apart (it reads two files per thread); at the closing
                // before the stats and the full collection, whose page faults and switches are the lab's doing
                counters[i] = SoftwareCounters.read(pid);
                if (i == 0) {
                    warmup.windowOpened(wall[0]);
                }
                if (i == 1) {
                    profiler.windowCloses(server); // as soon as the clocks are read, before LIVE's full collection
                    stats.set(server.stats());
                    if (probe != null) {
                        probe.edge(competitor, round, pid, false, stats.get());
                    }
                    live.set(server.live()); // a full collection, after the window's figures are taken
                    if (perConnection != null) {
                        try {
                            perConnection.awaitAccepted(server, !competitor.holdsAnFdPerConnection());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        with.set(server.memory()); // every connection still open: the generator closes them after
                        kernel[1] = ProcessStats.kernelSocketBytes();
                    }
                }
            });
            if (without != null && with.get() != null) {
                connectionCosts.add(ConnectionCost.of(variant, competitor.label(), round, perConnection.conns,
                    perConnection.connectSeconds, without, with.get(), kernel[0], kernel[1]));
            }
            Map<String, Double> s = stats.get();
            double window = (wall[1] - wall[0]) / 1e9;
            double jitCpu = jit[1] - jit[0];
            double serverCpu = cpu[1] - cpu[0] - jitCpu;
            // what the machine was busy with besides the server (JIT included) and the lab (load generator included)
            double foreign = Math.max(0, (machine[1] - machine[0]) - (cpu[1] - cpu[0]) - (lab[1] - lab[0])) / window;
            profiler.keep(server, m.messages() == 0 ? Double.NaN : (cpu[1] - cpu[0]) * 1e6 / m.messages());
            SoftwareCounters.PerThousand k = counters[0] == null || counters[1] == null
                ? SoftwareCounters.PerThousand.NONE
                : SoftwareCounters.perThousand(counters[0], counters[1], m.messages());
            return new RunResult(workload, variant, competitor.label(), round, primeSeconds + warmup.seconds(),
                m.rate(),
                m.offeredRate(),
                m.p50Us(), m.p99Us(), m.p999Us(), m.maxUs(),
                m.streams() > 0 ? m.streams() / m.seconds() : Double.NaN, m.streamP99Ms(), m.sendLagP99Us(),
                m.messages() == 0 ? Double.NaN : serverCpu * 1e6 / m.messages(), serverCpu / window, jitCpu / window,
                m.loadgenCpuSeconds() / window, (labJit[1] - labJit[0]) / window,
                ProcessStats.peakRssKiB(pid) / 1024.0,
                s.getOrDefault("nonHeapCommittedMiB", Double.NaN), s.getOrDefault("rssOutsideHeapMiB", Double.NaN),
                s.getOrDefault("heapPeakMiB", Double.NaN), live.get().getOrDefault("liveHeapMiB", Double.NaN),
                s.getOrDefault("directPeakMiB", Double.NaN),
                s.getOrDefault("gcCount", Double.NaN), s.getOrDefault("gcMillis", Double.NaN),
                m.messages() == 0 ? Double.NaN : s.getOrDefault("allocatedBytes", Double.NaN) / m.messages(),
                k.voluntarySwitches(), k.involuntarySwitches(), k.minorFaults(), k.majorFaults(), k.migrations(),
                per(s, "sqes", "enters"), per(s, "writeIovecs", "writes"), per(s, "recvBytes", "recvs"),
                s.getOrDefault("bufferRingExhausted", Double.NaN), s.getOrDefault("iterations", Double.NaN),
                m.mismatches(), m.errors(), m.starved(), foreign, profiler.profiled());
        }
    }

    /**
     * Loads {@code server} on {@value #PRIME_CONNS} connections until its JIT compiler is quiet (at most
     * {@code maxSeconds}), then waits (at most 10 s) until it has closed them all.
     *
     * @return seconds it took
     */
    private static double prime(ServerProcess server, LoadGenerator.Engine engine, int size, double maxSeconds)
        throws IOException, InterruptedException {
        long start = System.nanoTime();
        long fds = ProcessStats.openFds(server.pid());
        Warmup untilCompiled = new Warmup(PRIME_MIN_SECONDS, maxSeconds, server.pid());
        new LoadGenerator(server.address(), LoadGenerator.Config.closed(PRIME_CONNS, size, 1), engine)
            .run(untilCompiled::over, 0.5, () -> { });
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ProcessStats.openFds(server.pid()) > fds && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static double per(Map<String, Double> s, String what, String per) {
        Double a = s.get(what);
        Double b = s.get(per);
        return a == null || b == null || b == 0 ? Double.NaN : a / b;
    }

    /** @return a driver running the lab's own generator with {@code config} */
    static Driver generator(LoadGenerator.Config config, Settings settings) {
        return (target, warmupOver, edge) -> new LoadGenerator(target, config, settings.generator())
            .run(warmupOver, settings.seconds(), edge).measurement(config.openLoop());
    }
}
