package io.ringwire.lab.experiment;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.host.CServers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a command's experiments can run here, decided before any runs: which servers this host can build and hold
 * (the C servers, a thread per connection), how many descriptors a connection count needs against the open-file
 * limit, and how many event loops hold the connections beyond it.
 */
public final class Planning {
    private Planning() { }

    /** Descriptors besides the connections (see {@link LoadGenerator#SPARE_FDS}). */
    static final int SPARE_FDS = LoadGenerator.SPARE_FDS;

    /**
     * @param servers servers a workload asked for
     * @param note    receives what was done (an install, a build) or why the C servers are left out
     * @return {@code servers} without the C servers if they cannot be built here
     */
    public static List<Competitor> usable(List<Competitor> servers, Consumer<String> note) {
        if (servers.stream().noneMatch(Competitor::inC)) {
            return servers;
        }
        CServers.Built b = CServers.build(note);
        if (b.problem() == null) {
            return servers;
        }
        List<Competitor> left = servers.stream().filter(c -> !c.inC()).toList();
        if (left.isEmpty()) {
            throw new IllegalStateException("no server to run: " + b.problem());
        }
        return left;
    }

    /**
     * The conns workload at each count: the open-file limit raised as far as the hard limit allows, Ringwire with
     * direct descriptors beside the others where the kernel has them, enough event loops for a count beyond the
     * limit, and the servers that hold an fd per connection capped at the limit (a note says so).
     *
     * @param s        the settings (their window one interval unless --seconds said otherwise)
     * @param conns    the connection counts
     * @param size     bytes per message
     * @param interval seconds between one connection's messages
     * @param notes    receives the limits and what was left out or capped
     * @return the experiments
     * @throws IOException if the open-file limit cannot be read
     */
    public static List<Experiment> conns(Experiment.Settings s, List<Integer> conns, int size, double interval,
                                  List<String> notes) throws IOException {
        int most = conns.stream().mapToInt(Integer::intValue).max().orElse(0);
        // a server that holds an fd per connection needs as many as it holds, and each server's JVM inherits the
        // lab's limit: raised as far as the hard limit allows. The lab's generator (and Ringwire with direct
        // descriptors) holds connections beyond it in io_uring's fixed-file tables, no fd each.
        io.ringwire.uring.OpenFileLimit limit = io.ringwire.uring.OpenFileLimit.raise(most + SPARE_FDS);
        int fdCap = (int) Math.max(0, limit.soft() - SPARE_FDS);
        boolean direct = io.ringwire.uring.IoUringProbe.get().missingForDirectDescriptors().isEmpty();
        if (most > fdCap && !LoadGenerator.directAvailable()) {
            throw new IllegalStateException(String.format(java.util.Locale.ROOT, "%,d connections need about "
                + "%,d open files in the lab and as many in each server; the limit is %,d (hard %,d), raising "
                + "the hard limit needs CAP_SYS_RESOURCE, and this kernel cannot hold connections in direct "
                + "descriptors instead (%s): at most %,d connections here, or raise the limit (ulimit -Hn) "
                + "before starting the lab", most, most + SPARE_FDS, limit.soft(), limit.hard(),
                io.ringwire.uring.IoUringProbe.get().missingForDirectDescriptors(), fdCap));
        }
        notes.add(String.format(java.util.Locale.ROOT, "open-file limit %,d (the lab raised it where needed)%s",
            limit.soft(), most > fdCap ? "; the load generator holds the connections beyond it in direct "
                + "descriptors (io_uring fixed-file tables), as ringwire-direct does" : ""));
        if (direct) {
            s = s.withServers(Competitor.withDirect(s.servers())); // Ringwire with direct descriptors, every count
        }
        List<Experiment> e = new ArrayList<>();
        for (int n : conns) {
            List<Competitor> full = s.servers().stream().filter(c -> !c.holdsAnFdPerConnection() || n <= fdCap)
                .toList();
            List<Competitor> capped = s.servers().stream().filter(c -> !full.contains(c)).toList();
            if (!full.isEmpty()) {
                // a loop's table holds as many connections as the open-file limit: enough loops for n, and one
                int loops = n <= fdCap ? s.threads() : Math.max(s.threads(),
                    (int) Math.ceil(n / (double) fdCap) + 1);
                e.add(Workloads.conns(withoutThreadPerConnection(s.withServers(full).withThreads(loops), n, notes),
                    n, size, interval, loops > s.threads() ? loops + " event loops" : ""));
            }
            if (!capped.isEmpty()) {
                notes.add(String.format(java.util.Locale.ROOT, "%s at %,d connections: stopped at %,d, as many as "
                    + "the open-file limit allows (%,d: one descriptor per connection, %,d for the JVM's own)",
                    String.join(", ", capped.stream().map(Competitor::label).toList()), n, fdCap, limit.soft(),
                    SPARE_FDS));
                if (fdCap > 0) {
                    e.add(Workloads.conns(withoutThreadPerConnection(s.withServers(capped), fdCap, notes), fdCap,
                        size, interval, String.format(java.util.Locale.ROOT, "%,d asked: one fd per connection, "
                            + "open-file limit %,d", n, limit.soft())));
                }
            }
        }
        return e;
    }

    /** Leaves blocking-platform out when {@code n} threads would pass the kernel's limits, with a note. */
    private static Experiment.Settings withoutThreadPerConnection(Experiment.Settings s, int n,
                                                                  List<String> notes) {
        long threads = ProcessStats.maxThreads();
        if (n + 1000 <= threads || !s.servers().contains(Competitor.BLOCKING_PLATFORM)) {
            return s;
        }
        notes.add(String.format(java.util.Locale.ROOT, "blocking-platform left out at %,d connections: a "
            + "platform thread per connection, and this kernel allows %,d threads in all (kernel.pid_max and "
            + "kernel.threads-max)", n, threads));
        return s.withServers(s.servers().stream().filter(c -> c != Competitor.BLOCKING_PLATFORM).toList());
    }
}
