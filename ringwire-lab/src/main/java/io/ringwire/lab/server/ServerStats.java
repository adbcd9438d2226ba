package io.ringwire.lab.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.ringwire.transport.RingwireCounters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a lab server reports about itself, over its stdin and stdout: {@code RESET} starts a window (peaks and GC
 * counts start again), {@code STATS} answers one line {@code STATS key=value ...} with what the window saw: peak heap
 * in use (sampled every 10 ms, as a monitoring tool would see it), peak pooled direct memory of Netty's default
 * allocator, GC count and time, heap bytes allocated, memory committed outside the heap (Native Memory Tracking),
 * and for Ringwire the loop counters (enters, SQEs, CQEs, writes, iovecs, recvs, bytes, buffer-ring exhaustion,
 * iterations), and the resident set outside the Java heap. {@code LIVE} answers the heap in use after a full
 * collection ({@code LIVE liveHeapMiB=...}): the lab asks at a window's end, the load still on, so that what a server
 * retains under load is told apart from the garbage its peak includes. {@code MEMORY} answers what is live after a
 * full collection with a class histogram ({@link MemorySnapshot}), for the conns workload; {@code CONNS} the
 * connections Ringwire's loops hold in direct descriptors, which no fd counts. CPU time (the process CPU
 * clock) and the peak RSS the lab reads from outside. {@code PROFILE-START}, {@code PROFILE-STOP} and
 * {@code PROFILE-DUMP} drive async-profiler for {@code --profile} ({@link ServerProfiler}).
 */
public final class ServerStats {
    private static final long SAMPLE_MILLIS = 10;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private volatile long heapPeak;
    private volatile long directPeak;
    private long gcCountAtReset;
    private long gcMillisAtReset;
    private long allocatedAtReset;
    private long[] countersAtReset = new long[9];

    /**
     * Prints READY, then answers the lab on stdin until it closes, and then ends this process; samples memory
     * meanwhile.
     *
     * @param port the server's port, for the READY line
     */
    void serve(int port) {
        serve(port, "");
    }

    /**
     * {@link #serve(int)} with more on the READY line.
     *
     * @param port   the server's port
     * @param others {@code name=port} pairs, space-separated, of the server's other listeners; may be empty
     */
    void serve(int port, String others) {
        serve(port, others, null);
    }

    /**
     * What a measured process that is not one of the lab's servers (the redis-client workload's client JVM) answers
     * besides the servers' lines: its own figures for the window.
     */
    public interface Extension {
        /** {@code RESET}: the window starts. */
        void reset();

        /**
         * @param line a line the servers' protocol does not know
         * @return the one-line answer, or null: an unknown command
         */
        String answer(String line);
    }

    /**
     * {@link #serve(int, String)} for a process on Netty with lines of its own ({@code extension}).
     *
     * @param port      what the READY line says after READY
     * @param others    more words for the READY line; may be empty
     * @param extension told of every RESET, and asked for the answer to any line the servers' protocol does not know
     */
    public void serve(int port, String others, Extension extension) {
        if (extension != null) {
            nettyUsed = true;
        }
        Thread sampler = Thread.ofPlatform().daemon(true).name("lab-memory-sampler").start(this::sample);
        System.out.println(("READY " + port + " " + others).strip());
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("PROFILE-")) { // --profile: async-profiler around the window (ServerProfiler)
                    System.out.println(profile(line));
                    System.out.flush();
                    continue;
                }
                switch (line.trim()) {
                    case "RESET" -> {
                        reset();
                        if (extension != null) {
                            extension.reset();
                        }
                        System.out.println("OK");
                    }
                    case "STATS" -> System.out.println("STATS " + format(snapshot()));
                    case "LIVE" -> System.out.println("LIVE " + format(live()));
                    case "MEMORY" -> System.out.println(MemorySnapshot.take().line());
                    case "CONNS" -> System.out.println("CONNS directDescriptors=" + directDescriptors());
                    default -> {
                        String answer = extension == null ? null : extension.answer(line.trim());
                        System.out.println(answer != null ? answer : "ERROR unknown command '" + line + "'");
                    }
                }
                System.out.flush();
            }
        } catch (IOException e) {
            // the lab went away, as below
        }
        // end of input: the lab closed our stdin or is gone (ended by a signal, killed, crashed before it could stop
        // us); a server nobody measures or stops would go on holding its core, its heap and its port
        sampler.interrupt();
        System.exit(0);
    }

    private static String profile(String line) {
        int space = line.indexOf(' ');
        String command = space < 0 ? line : line.substring(0, space);
        String argument = space < 0 ? "" : line.substring(space + 1);
        return switch (command) {
            case "PROFILE-START" -> ServerProfiler.start(argument);
            case "PROFILE-STOP" -> ServerProfiler.stop();
            case "PROFILE-DUMP" -> ServerProfiler.dump(argument);
            default -> "ERROR unknown command '" + line + "'";
        };
    }

    private void sample() {
        while (!Thread.currentThread().isInterrupted()) {
            heapPeak = Math.max(heapPeak, memory.getHeapMemoryUsage().getUsed());
            directPeak = Math.max(directPeak, nettyDirect());
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long nettyDirect() {
        // only once Netty's allocator exists: the blocking servers never create it, and must not pay for it here
        if (!nettyUsed) {
            return 0;
        }
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
            ? p.metric().usedDirectMemory() : 0;
    }

    /** Set by the Netty servers' path before any sampling matters (LabServer's blocking path never loads Netty). */
    static volatile boolean nettyUsed;

    private synchronized void reset() {
        heapPeak = memory.getHeapMemoryUsage().getUsed();
        directPeak = nettyDirect();
        gcCountAtReset = collectors.stream().mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
        gcMillisAtReset = collectors.stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        allocatedAtReset = allocatedBytes();
        countersAtReset = counters();
    }

    private synchronized Map<String, Double> snapshot() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("heapPeakMiB", Math.max(heapPeak, memory.getHeapMemoryUsage().getUsed()) / 1048576.0);
        m.put("directPeakMiB", Math.max(directPeak, nettyDirect()) / 1048576.0);
        m.put("gcCount", (double) (collectors.stream().mapToLong(GarbageCollectorMXBean::getCollectionCount).sum()
            - gcCountAtReset));
        m.put("gcMillis", (double) (collectors.stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum()
            - gcMillisAtReset));
        m.put("allocatedBytes", (double) (allocatedBytes() - allocatedAtReset));
        m.put("nonHeapCommittedMiB", nonHeapCommittedKiB() / 1024.0);
        m.put("rssOutsideHeapMiB", rssOutsideHeapKiB() / 1024.0);
        m.put("heapUsedMiB", memory.getHeapMemoryUsage().getUsed() / 1048576.0);
        m.put("directUsedMiB", nettyDirect() / 1048576.0);
        m.put("bindingNativeBytes", nettyUsed ? (double) io.ringwire.uring.NativeMemory.heldBytes() : 0);
        long[] now = counters();
        String[] names = {"enters", "sqes", "cqes", "writes", "writeIovecs", "recvs", "recvBytes",
            "bufferRingExhausted", "iterations"};
        if (now[0] > 0) {
            for (int i = 0; i < names.length; i++) {
                m.put(names[i], (double) (now[i] - countersAtReset[i]));
            }
        }
        return m;
    }

    /**
     * @return memory the JVM has committed outside the Java heap (code, metaspace, threads, GC structures, native
     *         allocations such as io_uring rings and buffer rings), in KiB, from Native Memory Tracking; NaN when the
     *         JVM runs without {@code -XX:NativeMemoryTracking=summary}
     */
    static double nonHeapCommittedKiB() {
        return parseNonHeapKiB(MemorySnapshot.diagnostic("vmNativeMemory", "summary"));
    }

    /**
     * @param nmt the text of {@code VM.native_memory summary}
     * @return total committed minus the Java heap's committed, KiB, or NaN if the text has neither
     */
    public static double parseNonHeapKiB(String nmt) {
        java.util.regex.Matcher total = java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
            .matcher(nmt);
        java.util.regex.Matcher heap = java.util.regex.Pattern.compile(
            "Java Heap \\(reserved=\\d+KB, committed=(\\d+)KB").matcher(nmt);
        if (!total.find() || !heap.find()) {
            return Double.NaN;
        }
        return Long.parseLong(total.group(1)) - Long.parseLong(heap.group(1));
    }

    /**
     * @return the resident set outside the Java heap, in KiB: the Rss of every mapping in {@code /proc/self/smaps}
     *         but the heap's. Unlike the peak RSS it does not depend on how far the collector has grown and touched
     *         the heap, and unlike Native Memory Tracking it counts what the JVM freed but the C library kept (the
     *         compiler's arenas) and memory mapped by a binding; NaN where either cannot be read
     */
    static double rssOutsideHeapKiB() {
        long[] heap = parseHeapRange(MemorySnapshot.diagnostic("gcHeapInfo"));
        if (heap == null) {
            return Double.NaN;
        }
        try {
            return rssOutsideKiB(java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/smaps")),
                heap[0], heap[1]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static final java.util.regex.Pattern HEAP_SPAN =
        java.util.regex.Pattern.compile("\\[(0x[0-9a-f]+(?:, 0x[0-9a-f]+)+)\\)");

    /**
     * @param gcHeapInfo the text of {@code GC.heap_info}
     * @return the lowest and highest address its spaces name ({@code [start, ..., end)}), or null if none
     */
    public static long[] parseHeapRange(String gcHeapInfo) {
        java.util.regex.Matcher m = HEAP_SPAN.matcher(gcHeapInfo);
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        while (m.find()) {
            for (String a : m.group(1).split(", ")) {
                long v = Long.parseUnsignedLong(a.substring(2), 16);
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        return lo < hi ? new long[] {lo, hi} : null;
    }

    /**
     * @param smaps     the lines of {@code /proc/<pid>/smaps}
     * @param heapStart first address of the Java heap
     * @param heapEnd   first address past it
     * @return the Rss of the mappings that do not lie within the heap, KiB
     */
    public static long rssOutsideKiB(List<String> smaps, long heapStart, long heapEnd) {
        long outside = 0;
        boolean inHeap = false;
        for (String line : smaps) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && isHex(line, 0, dash) && isHex(line, dash + 1, space)) {
                long start = Long.parseUnsignedLong(line, 0, dash, 16);
                long end = Long.parseUnsignedLong(line, dash + 1, space, 16);
                inHeap = start >= heapStart && end <= heapEnd;
            } else if (!inHeap && line.startsWith("Rss:")) {
                outside += Long.parseLong(line.substring(4).replace("kB", "").trim());
            }
        }
        return outside;
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return to > from;
    }

    /** @return heap bytes allocated by every thread so far (HotSpot's per-thread TLAB accounting) */
    private static long allocatedBytes() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
            ? t.getTotalThreadAllocatedBytes() : -1;
    }

    /**
     * Collects the whole heap (a full collection: -XX:+ExplicitGCInvokesConcurrent is not among the lab's flags), then
     * reads what is left in use.
     *
     * @return {@code liveHeapMiB}: the heap in use after it
     */
    private Map<String, Double> live() {
        System.gc();
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("liveHeapMiB", memory.getHeapMemoryUsage().getUsed() / 1048576.0);
        return m;
    }

    /** @return connections on direct descriptors in every Ringwire loop of this server (0 for the others) */
    private static long directDescriptors() {
        long n = 0;
        if (nettyUsed) {
            for (RingwireCounters c : RingwireCounters.all()) {
                n += c.directDescriptors();
            }
        }
        return n;
    }

    private static long[] counters() {
        long[] sum = new long[9];
        if (!nettyUsed) {
            return sum;
        }
        for (RingwireCounters c : RingwireCounters.all()) {
            long[] v = {c.enters(), c.sqes(), c.cqes(), c.writes(), c.writeIovecs(), c.recvs(), c.recvBytes(),
                c.bufferRingExhausted(), c.iterations()};
            for (int i = 0; i < sum.length; i++) {
                sum[i] += v[i];
            }
        }
        return sum;
    }

    static String format(Map<String, Double> m) {
        return m.entrySet().stream().map(e -> e.getKey() + "=" + String.format(Locale.ROOT, "%.3f", e.getValue()))
            .collect(Collectors.joining(" "));
    }

    /**
     * @param line a {@code STATS k=v ...} line
     * @return its values by name
     */
    public static Map<String, Double> parse(String line) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String kv : line.substring(line.indexOf(' ') + 1).trim().split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
            }
        }
        return m;
    }
}
