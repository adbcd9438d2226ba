package io.ringwire.lab.cli;

import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.server.Competitor;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** {@code lab redis-client}: Ringwire as the client, under Lettuce, against one redis-server. */
@Command(name = "redis-client", mixinStandardHelpOptions = true, versionProvider = Lab.Version.class,
    sortOptions = false,
    description = {"Ringwire as the CLIENT: Lettuce (ringwire-lettuce) on Ringwire, on Netty epoll and on Netty "
        + "io_uring (Lettuce's own transports) against one real redis-server (Debian's redis-server; installed with "
        + "apt-get when run as root, else this workload is skipped with a note). The measured process is the client: "
        + "each run a fresh client JVM on CPU 1 and a fresh redis-server on CPU 0, one Lettuce connection (async API, "
        + "byte arrays), the load running from the client's start; the window opens once the client's JIT compiler "
        + "threads are quiet, and its CPU over the window (JIT threads apart) per command answered is the figure. "
        + "--threads sets Lettuce's I/O threads; --profile samples each client JVM's window with async-profiler.",
        "",
        "SET and GET of each --size at each --depth (commands in flight, a closed loop); pipelined batches of --batch "
            + "commands (SET and GET pairs, auto-flush off, one flushCommands() a batch); GETs at a fixed --rate "
            + "(open loop, latency from the scheduled send: p50 and p99). The last two with the first --size. Every "
            + "reply is checked: a SET answers OK, a GET the value last SET to its key, and every key is read back "
            + "after the window; any wrong reply or error makes the exit code 1.",
        "",
        "Motivated by a user's report on Lettuce's io_uring transport: lettuce#3523 "
            + "(https://github.com/redis/lettuce/issues/3523)."})
final class RedisClientCommand extends Lab.WorkloadCommand {
    @Option(names = "--command", split = ",", defaultValue = "set,get", description = "set, get or both, a list "
        + "(default: ${DEFAULT-VALUE})")
    List<String> commands;

    @Option(names = "--size", split = ",", defaultValue = "16,1024", description = "value bytes (≥ 16), a list "
        + "(default: ${DEFAULT-VALUE})")
    List<Integer> sizes;

    @Option(names = "--depth", split = ",", defaultValue = "1,16,64", description = "commands in flight on the "
        + "connection, a list (default: ${DEFAULT-VALUE})")
    List<Integer> depths;

    @Option(names = "--batch", defaultValue = "100", description = "commands per pipelined batch, even; 0: no "
        + "pipelined run (default: ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--rate", defaultValue = "20000", description = "GETs per second of the fixed-rate run; 0: none "
        + "(default: ${DEFAULT-VALUE})")
    double rate;

    @Override
    public Integer call() throws Exception {
        for (String c : commands) {
            if (!c.equals("set") && !c.equals("get")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--command: set or get, not " + c);
            }
        }
        List<String> notes = new ArrayList<>();
        Experiment.Settings s = common.clientSettings(common.servers == null
            ? common.settings(Competitor.lettuceClients()) : common.settings());
        notes.add("redis-client: each client JVM " + (io.ringwire.lab.server.ServerProcess.canPin()
            ? "on CPU 1, redis-server on CPU 0 (beside the lab, which waits during the window)"
            : "and redis-server unpinned (one core, or no taskset)"));
        return run(Workloads.redisClient(s, commands, sizes, depths, batch, rate, notes::add), notes, false);
    }
}
