package io.ringwire.lab.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToLongFunction;

/** Reads a process's CPU time and peak RSS from {@code /proc}: what the server spent, measured from outside. */
public final class ProcessStats {
    private ProcessStats() { }

    /** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux x86_64). */
    static final double TICKS_PER_SECOND = 100.0;

    /**
     * @param pid a process
     * @return CPU time of all its threads (ended ones too), in seconds: the kernel's nanosecond count from the
     *         process's CPU clock; from /proc's 10 ms ticks (utime + stime) where that clock cannot be read. At the
     *         conns workload's loads (a few hundredths of a core) ticks would decide a ratio by one or two.
     */
    public static double cpuSeconds(long pid) {
        long nanos = ProcessCpuClock.nanos(pid);
        return nanos >= 0 ? nanos / 1e9 : statCpuSeconds(pid, ProcessStats::parseCpuTicks);
    }

    private static double statCpuSeconds(long pid, ToLongFunction<String> ticks) {
        try {
            return ticks.applyAsLong(Files.readString(Path.of("/proc/" + pid + "/stat"))) / TICKS_PER_SECOND;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /**
     * @param pid a process
     * @return utime + stime of the process and of its children that have ended and been waited for (cutime +
     *         cstime), in seconds: the lab's own CPU including the external load generators it ran (redis-benchmark)
     */
    public static double cpuSecondsWithChildren(long pid) {
        return statCpuSeconds(pid, ProcessStats::parseCpuTicksWithChildren);
    }

    /**
     * @param pid a process
     * @return cutime + cstime alone, in seconds: the CPU of its children that have ended and been waited for. Read
     *         before an external load generator (wrk, redis-benchmark) starts and after it has ended, the difference
     *         is that generator's CPU (10 ms ticks)
     */
    public static double endedChildrenCpuSeconds(long pid) {
        return statCpuSeconds(pid, ProcessStats::parseEndedChildrenCpuTicks);
    }

    /**
     * @param stat the text of /proc/PID/stat
     * @return utime + stime + cutime + cstime in ticks (fields 14 to 17)
     */
    public static long parseCpuTicksWithChildren(String stat) {
        return parseCpuTicks(stat) + parseEndedChildrenCpuTicks(stat);
    }

    /**
     * @param stat the text of /proc/PID/stat
     * @return cutime + cstime in ticks (fields 16 and 17)
     */
    static long parseEndedChildrenCpuTicks(String stat) {
        String[] f = statFields(stat);
        return Long.parseLong(f[13]) + Long.parseLong(f[14]);
    }

    /**
     * @param pid a JVM process
     * @return utime + stime of its JIT compiler threads (C1/C2 CompilerThread), in seconds: work that ends once the
     *         code is warm, kept apart so a short window does not charge one server for compiling more code
     */
    public static double jitCpuSeconds(long pid) {
        double seconds = 0;
        try (var tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                        seconds += threadCpuSeconds(task, stat);
                    }
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException e) {
            return Double.NaN;
        }
        return seconds;
    }

    /**
     * @return a thread's CPU time in seconds: the scheduler's nanoseconds from its schedstat (the first field), as
     *         precise as {@link #cpuSeconds}; its stat's ticks where the kernel has no schedstat
     */
    private static double threadCpuSeconds(Path task, String stat) {
        try {
            String schedstat = Files.readAllLines(task.resolve("schedstat")).get(0);
            return Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))) / 1e9;
        } catch (IOException | RuntimeException none) {
            return parseCpuTicks(stat) / TICKS_PER_SECOND;
        }
    }

    /**
     * @param stat the text of /proc/PID/stat
     * @return utime + stime in ticks (fields 14 and 15, counted after the parenthesised command name)
     */
    public static long parseCpuTicks(String stat) {
        String[] f = statFields(stat);
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** @return the fields of /proc/PID/stat after the parenthesised command name (which may hold spaces) */
    static String[] statFields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    /**
     * @param pid a process
     * @return its threads' context switches so far, summed over each thread's {@code /proc/PID/task/TID/status}:
     *         {voluntary (the thread blocked: a wait for work, so a wake-up followed), involuntary (preempted)};
     *         threads that ended are not counted, nor the lab server's own threads (named {@code lab-...}: its
     *         memory sampler wakes every 10 ms, which is the lab's cost, not the transport's); {-1, -1} if the
     *         process is gone
     */
    public static long[] contextSwitches(long pid) {
        SoftwareCounters.Snapshot now = SoftwareCounters.read(pid);
        if (now.threads().isEmpty()) {
            return new long[] {-1, -1};
        }
        long[] sum = new long[2];
        for (SoftwareCounters.ThreadCounts t : now.threads().values()) {
            sum[0] += Math.max(0, t.voluntary());
            sum[1] += Math.max(0, t.involuntary());
        }
        return sum;
    }

    /** @return {voluntary_ctxt_switches, nonvoluntary_ctxt_switches} of a status file's lines (0 where absent) */
    public static long[] parseContextSwitches(List<String> status) {
        long[] v = new long[2];
        for (String line : status) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                v[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                v[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return v;
    }


    /**
     * @param pid a process
     * @return VmHWM, its peak resident set, in KiB, or -1
     */
    public static long peakRssKiB(long pid) {
        return statusKiB(pid, "VmHWM:");
    }

    /**
     * @param pid a process
     * @return VmRSS, its resident set now, in KiB, or -1
     */
    public static long rssKiB(long pid) {
        return statusKiB(pid, "VmRSS:");
    }

    /** @return the value of a {@code /proc/PID/status} line in kB, or -1 */
    private static long statusKiB(long pid, String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /**
     * @param pid a process
     * @return how many file descriptors it has open, or -1
     */
    /** The kernel's caches that grow with each TCP connection (its socket, inode, file, dentry, epoll item). */
    static final java.util.Set<String> SOCKET_SLABS = java.util.Set.of("TCP", "TCPv6", "sock_inode_cache", "filp",
        "dentry", "eventpoll_epi");

    /**
     * @return the kernel's memory for TCP connections, machine-wide: socket buffers ({@code /proc/net/sockstat}'s TCP
     *         mem, in pages) and, where {@code /proc/slabinfo} is readable (root), the objects of
     *         {@link #SOCKET_SLABS}; NaN if sockstat cannot be read. Both ends of a loopback connection count
     */
    public static double kernelSocketBytes() {
        try {
            double bytes = parseSockstatTcpPages(Files.readAllLines(Path.of("/proc/net/sockstat")))
                * (double) io.ringwire.uring.Libc.pageSize();
            try {
                bytes += parseSlabBytes(Files.readAllLines(Path.of("/proc/slabinfo")), SOCKET_SLABS);
            } catch (IOException | RuntimeException e) {
                // not root: socket buffers only
            }
            return bytes;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** @return the {@code mem} of sockstat's TCP line (pages), or throws if there is none */
    static long parseSockstatTcpPages(List<String> sockstat) {
        for (String line : sockstat) {
            if (line.startsWith("TCP:")) {
                String[] w = line.trim().split("\\s+");
                for (int i = 1; i + 1 < w.length; i++) {
                    if (w[i].equals("mem")) {
                        return Long.parseLong(w[i + 1]);
                    }
                }
            }
        }
        throw new IllegalArgumentException("no TCP mem in sockstat: " + sockstat);
    }

    /** @return active objects × object size summed over the named caches of {@code /proc/slabinfo} */
    static long parseSlabBytes(List<String> slabinfo, java.util.Set<String> caches) {
        long bytes = 0;
        for (String line : slabinfo) {
            String[] w = line.trim().split("\\s+");
            if (w.length > 3 && caches.contains(w[0])) {
                bytes += Long.parseLong(w[1]) * Long.parseLong(w[3]);
            }
        }
        return bytes;
    }

    public static long openFds(long pid) {
        try (java.util.stream.Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return s.count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** @return the most threads the kernel lets exist at once (kernel.pid_max and kernel.threads-max), or MAX_VALUE */
    public static long maxThreads() {
        long most = Long.MAX_VALUE;
        for (String f : new String[] {"/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max"}) {
            try {
                // by lines: on some kernels a sysctl file read whole (readString) yields only its first byte
                most = Math.min(most, Long.parseLong(Files.readAllLines(Path.of(f)).get(0).trim()));
            } catch (IOException | RuntimeException e) {
                // not this one
            }
        }
        return most;
    }

    /** @return busy CPU seconds of the whole machine since boot (all but idle and iowait; steal left out), or NaN */
    public static double machineBusySeconds() {
        try {
            return parseMachineBusyTicks(Files.readString(Path.of("/proc/stat"))) / TICKS_PER_SECOND;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /** @return user + nice + system + irq + softirq ticks of the aggregate {@code cpu} line of /proc/stat */
    public static long parseMachineBusyTicks(String stat) {
        for (String line : stat.lines().toList()) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+");
                // cpu user nice system idle iowait irq softirq steal guest guest_nice
                return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]);
            }
        }
        throw new IllegalArgumentException("no aggregate cpu line in /proc/stat");
    }
}
