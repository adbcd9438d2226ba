package io.ringwire.lab;

import io.ringwire.uring.Probe;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ./ringwire lab}: runs the seeds' experiments on this machine, every server side by side, and prints a verdict.
 * This first version has the echo workload (seed 001) and the probe; the rpc, single-stream, redis and cost-model
 * workloads and the HTML report come next.
 */
@Command(name = "lab", mixinStandardHelpOptions = true, subcommands = {Lab.Echo.class, Lab.ProbeCommand.class},
    description = {"Ringwire's lab: the seeds' experiments, every I/O model side by side, on this machine.",
        "Without a subcommand it runs the default comparison: echo, 500 connections × 128 B × 1 in flight, all six "
            + "servers, 3 rounds."})
public final class Lab implements Callable<Integer> {
    @Option(names = "--out", description = "directory for results.json (default: ${DEFAULT-VALUE})",
        defaultValue = "lab-results")
    Path out;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Lab()).execute(args));
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // no subcommand: the default comparison, i.e. "echo" with its defaults
        return spec.commandLine().execute("--out=" + out, "echo");
    }

    /** The echo workload. */
    @Command(name = "echo", mixinStandardHelpOptions = true,
        description = {"Seed 001: N connections echo messages of a given size, each keeping D in flight (closed loop).",
            "Reports round trips/s, latency percentiles, server CPU per round trip (from /proc), server peak RSS, "
                + "load-generator CPU, and every byte checked."})
    static final class Echo implements Callable<Integer> {
        @CommandLine.ParentCommand
        Lab parent;

        @Option(names = "--servers", split = ",", description = "comma-separated: ringwire, netty-io_uring, "
            + "netty-epoll, netty-nio, blocking-platform, blocking-virtual (default: all)")
        List<String> servers;

        @Option(names = "--conns", defaultValue = "500", description = "connections (default: ${DEFAULT-VALUE})")
        int conns;

        @Option(names = "--size", defaultValue = "128", description = "bytes per message (default: ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--depth", defaultValue = "1", description = "messages in flight per connection "
            + "(default: ${DEFAULT-VALUE})")
        int depth;

        @Option(names = "--rounds", defaultValue = "3", description = "rounds; servers alternate order "
            + "(default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--seconds", defaultValue = "5", description = "measured seconds per run "
            + "(default: ${DEFAULT-VALUE})")
        double seconds;

        @Option(names = "--warmup", defaultValue = "3", description = "unmeasured seconds first (JIT) "
            + "(default: ${DEFAULT-VALUE})")
        double warmup;

        @Option(names = "--threads", defaultValue = "1", description = "event-loop threads of the Netty servers "
            + "(default: ${DEFAULT-VALUE})")
        int threads;

        @Override
        public Integer call() throws Exception {
            List<Competitor> list = servers == null ? Arrays.asList(Competitor.values())
                : servers.stream().map(Competitor::of).toList();
            EchoExperiment.Settings s = new EchoExperiment.Settings(list, rounds, conns, size, depth, warmup, seconds,
                threads);
            System.out.println("echo: " + conns + " conns × " + size + " B × depth " + depth + ", " + rounds
                + " rounds, servers " + list.stream().map(Competitor::label).toList()
                + (EchoExperiment.canPin() ? ", server on CPU 1" : ", unpinned (one core or no taskset)"));
            List<RunResult> runs = new EchoExperiment(s, System.out::println).run();
            Summary summary = Summary.of(runs);
            System.out.println();
            System.out.print(summary.table());
            System.out.println(summary.verdict());
            Path dir = parent == null ? Path.of("lab-results") : parent.out;
            Files.createDirectories(dir);
            Path json = dir.resolve("results.json");
            Files.writeString(json, summary.json("echo", s, runs), StandardCharsets.UTF_8);
            System.out.println("results: " + json.toAbsolutePath());
            return summary.rows().stream().anyMatch(r -> r.mismatches() > 0) ? 1 : 0;
        }
    }

    /** The kernel's io_uring features. */
    @Command(name = "probe", mixinStandardHelpOptions = true, description = "What this kernel's io_uring offers.")
    static final class ProbeCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            Probe.main(new String[0]);
            return 0;
        }
    }
}
