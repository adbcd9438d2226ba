package io.ringwire.lab.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The software counters {@code perf stat} shows for a process, read from {@code /proc} at a window's two edges like its
 * CPU time, so that neither a perf binary nor perf_event permissions are needed: perf's {@code context-switches} are
 * the voluntary plus the involuntary switches here, its {@code page-faults} the minor plus the major faults, its
 * {@code cpu-migrations} the migrations.
 *
 * <ul>
 *   <li>Context switches: {@code voluntary_ctxt_switches} and {@code nonvoluntary_ctxt_switches} of every thread's
 *       {@code /proc/PID/task/TID/status} ({@code /proc/PID/status} has only the main thread's). A voluntary switch is
 *       a thread that blocked (a wait for work: a wake-up follows), an involuntary one a thread preempted.</li>
 *   <li>Page faults: {@code minflt} and {@code majflt} of {@code /proc/PID/stat}, process-wide, the threads that
 *       ended included. A major fault read a page from storage; a minor one mapped a page already in memory or a
 *       fresh zeroed one (a heap or buffer page touched for the first time).</li>
 *   <li>CPU migrations: {@code se.nr_migrations} of every thread's {@code /proc/PID/task/TID/sched}, a file of
 *       kernels built with {@code CONFIG_SCHED_DEBUG} (Linux 6.18 has it); where it or the field is missing the
 *       migrations are unknown (NaN), never 0. A server pinned to one CPU should show none.</li>
 * </ul>
 *
 * <p>The per-thread counts are summed thread by thread between the edges: a thread that ended inside the window takes
 * its counts with it (its switches and migrations in the window are lost, not subtracted), one born inside it counts
 * from zero. The lab server's own threads (named {@code lab-...}: its stats connection, its memory sampler waking every
 * 10 ms) are left out of them, as the lab's cost rather than the server's; their page faults cannot be told apart and
 * are in the process's. The JIT compiler threads are in every count.
 */
public final class SoftwareCounters {
    private SoftwareCounters() { }

    /**
     * One thread's counts.
     *
     * @param voluntary   voluntary context switches, or -1 where its status has none
     * @param involuntary involuntary context switches, or -1 likewise
     * @param migrations  CPU migrations, or -1 where its sched file or the field is missing
     */
    public record ThreadCounts(long voluntary, long involuntary, long migrations) { }

    /** A thread's counts at its birth. */
    private static final ThreadCounts ZERO = new ThreadCounts(0, 0, 0);

    /**
     * What one edge read.
     *
     * @param threads     each thread's counts by its id, the lab's own threads left out; empty if the process is gone
     * @param minorFaults the process's minor page faults, or -1 if its stat could not be read
     * @param majorFaults the process's major page faults, or -1
     */
    public record Snapshot(Map<Long, ThreadCounts> threads, long minorFaults, long majorFaults) {
        /** Nothing read: the process is gone. */
        static final Snapshot NONE = new Snapshot(Map.of(), -1, -1);
    }

    /**
     * A window's counts per 1,000 messages; NaN where not known.
     *
     * @param voluntarySwitches   voluntary context switches
     * @param involuntarySwitches involuntary context switches
     * @param minorFaults         minor page faults
     * @param majorFaults         major page faults
     * @param migrations          CPU migrations
     */
    public record PerThousand(double voluntarySwitches, double involuntarySwitches, double minorFaults,
                              double majorFaults, double migrations) {
        /** Nothing known. */
        public static final PerThousand NONE = new PerThousand(Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN);
    }

    /**
     * @param pid a process
     * @return its counts now
     */
    public static Snapshot read(long pid) {
        Path proc = Path.of("/proc/" + pid);
        List<Path> tasks = new ArrayList<>();
        try (var listing = Files.newDirectoryStream(proc.resolve("task"))) {
            listing.forEach(tasks::add);
        } catch (IOException e) {
            return Snapshot.NONE;
        }
        Map<Long, ThreadCounts> threads = threads(tasks);
        long[] faults;
        try {
            faults = parsePageFaults(Files.readString(proc.resolve("stat")));
        } catch (IOException | RuntimeException e) {
            faults = new long[] {-1, -1};
        }
        return new Snapshot(threads, faults[0], faults[1]);
    }

    /**
     * @param tasks {@code /proc/PID/task/TID} directories as listed; a thread may end before its files are read
     * @return the counts of each thread still there, by id; the lab's own threads left out
     */
    static Map<Long, ThreadCounts> threads(List<Path> tasks) {
        Map<Long, ThreadCounts> out = new HashMap<>();
        for (Path task : tasks) {
            List<String> status;
            try {
                status = Files.readAllLines(task.resolve("status"));
            } catch (IOException gone) {
                continue; // the thread ended between listing and reading
            }
            if (labThread(status)) {
                continue;
            }
            // the kernel has written both lines since 2.6.23; without them the switches are unknown, not 0
            long[] switches = status.stream().anyMatch(l -> l.startsWith("voluntary_ctxt_switches:"))
                ? ProcessStats.parseContextSwitches(status) : new long[] {-1, -1};
            long migrations;
            try {
                migrations = parseMigrations(Files.readAllLines(task.resolve("sched")));
            } catch (IOException e) {
                if (!Files.isDirectory(task)) {
                    continue; // it ended between the two reads
                }
                migrations = -1; // a kernel without /proc/PID/task/TID/sched
            }
            try {
                out.put(Long.parseLong(task.getFileName().toString()),
                    new ThreadCounts(switches[0], switches[1], migrations));
            } catch (NumberFormatException notAThread) {
                // not a thread's directory
            }
        }
        return out;
    }

    /** @return whether a status file is of one of the lab server's own threads ({@code Name:} starts with lab-) */
    static boolean labThread(List<String> status) {
        for (String line : status) {
            if (line.startsWith("Name:")) {
                return line.substring("Name:".length()).strip().startsWith("lab-");
            }
        }
        return false;
    }

    /**
     * @param sched the lines of {@code /proc/PID/task/TID/sched}
     * @return its {@code se.nr_migrations}, or -1 where it has none
     */
    static long parseMigrations(List<String> sched) {
        for (String line : sched) {
            if (line.startsWith("se.nr_migrations")) {
                try {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /**
     * @param stat the text of {@code /proc/PID/stat}
     * @return {minflt, majflt} (fields 10 and 12, counted after the parenthesised command name, which may hold spaces)
     */
    static long[] parsePageFaults(String stat) {
        String[] f = ProcessStats.statFields(stat);
        return new long[] {Long.parseLong(f[7]), Long.parseLong(f[9])};
    }

    /**
     * @param opening  what the window's opening read
     * @param closing  what its closing read
     * @param messages the messages answered in between
     * @return the window's counts per 1,000 messages: each thread's closing count less its opening one (from zero for
     *         a thread born in the window, or whose id an ended thread had); NaN for what either edge could not read,
     *         and for all without messages
     */
    public static PerThousand perThousand(Snapshot opening, Snapshot closing, long messages) {
        if (messages <= 0) {
            return PerThousand.NONE;
        }
        double k = messages / 1000.0;
        double voluntary = Double.NaN;
        double involuntary = Double.NaN;
        double migrations = Double.NaN;
        if (!opening.threads().isEmpty() && !closing.threads().isEmpty()) {
            long v = 0;
            long i = 0;
            long m = 0;
            boolean switchesKnown = true;
            boolean migrationsKnown = true;
            for (Map.Entry<Long, ThreadCounts> e : closing.threads().entrySet()) {
                ThreadCounts now = e.getValue();
                ThreadCounts then = opening.threads().get(e.getKey());
                if (then == null || fell(then.voluntary(), now.voluntary()) || fell(then.involuntary(),
                    now.involuntary()) || fell(then.migrations(), now.migrations())) {
                    then = ZERO; // born in the window, or a new thread with the id of one that ended
                }
                if (now.voluntary() < 0 || then.voluntary() < 0) {
                    switchesKnown = false;
                } else {
                    v += now.voluntary() - then.voluntary();
                    i += now.involuntary() - then.involuntary();
                }
                if (now.migrations() < 0 || then.migrations() < 0) {
                    migrationsKnown = false;
                } else {
                    m += now.migrations() - then.migrations();
                }
            }
            voluntary = switchesKnown ? v / k : Double.NaN;
            involuntary = switchesKnown ? i / k : Double.NaN;
            migrations = migrationsKnown ? m / k : Double.NaN;
        }
        boolean faultsKnown = opening.minorFaults() >= 0 && closing.minorFaults() >= 0;
        return new PerThousand(voluntary, involuntary,
            faultsKnown ? (closing.minorFaults() - opening.minorFaults()) / k : Double.NaN,
            faultsKnown ? (closing.majorFaults() - opening.majorFaults()) / k : Double.NaN, migrations);
    }

    /** @return whether a count known at both edges went down: only a new thread's can */
    private static boolean fell(long then, long now) {
        return then >= 0 && now >= 0 && now < then;
    }
}
