package io.ringwire.lab.server;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server holds after a full collection, for the conns workload (memory per connection is the difference
 * between two of these, with and without the connections): the live heap, the memory committed outside the heap by
 * Native Memory Tracking category, the class histogram of live objects, and the resident set.
 *
 * <p>Taken inside the server ({@link #take()}, answering the lab's {@code MEMORY} line) and read back by the lab
 * ({@link #parse}). The kernel's socket buffers are in none of these figures: they are not the process's memory.
 *
 * @param heapBytes live heap after a full collection
 * @param nmtKiB    committed KiB per Native Memory Tracking category (empty without NMT)
 * @param classes   per class of live objects: instances and bytes (classes holding under {@value #MIN_CLASS_BYTES}
 *                  bytes left out)
 * @param rssKiB    the process's resident set when the snapshot was read (lab side; 0 in the server)
 */
public record MemorySnapshot(long heapBytes, Map<String, Long> nmtKiB, Map<String, long[]> classes, long rssKiB) {
    /** Classes with fewer live bytes than this are left out of the line: they cannot matter per connection. */
    static final long MIN_CLASS_BYTES = 8192;

    /**
     * NMT categories that a connection can grow: thread stacks (a thread per connection), malloc and Unsafe/FFM
     * allocations ("Other": direct buffers, native state), JVM-internal and monitor structures. The rest are paid once
     * (classes, code, the compiler's arenas, symbols, NMT itself) or are the heap; GC structures are kept apart
     * ({@link #GC_CATEGORIES}) because they follow the heap's shape more than the connection count.
     */
    public static final Set<String> NATIVE_CATEGORIES = Set.of("Thread", "Internal", "Other", "Synchronization",
        "Object_Monitors", "Serviceability", "Safepoint", "NIO");

    /** NMT categories of the collector's own structures (remembered sets, card tables). */
    public static final Set<String> GC_CATEGORIES = Set.of("GC", "GCCardSet");

    private static final Pattern NMT_LINE = Pattern.compile("-\\s+([A-Za-z][A-Za-z ]*?) \\(reserved=\\d+KB, "
        + "committed=(\\d+)KB");
    private static final Pattern HISTO_LINE = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    /** @return this JVM's snapshot: a class histogram (a full collection), another collection, then the figures */
    static MemorySnapshot take() {
        String histogram = diagnostic("gcClassHistogram");
        Map<String, long[]> classes = new LinkedHashMap<>();
        Matcher m = HISTO_LINE.matcher(histogram);
        while (m.find()) {
            long bytes = Long.parseLong(m.group(2));
            if (bytes >= MIN_CLASS_BYTES) {
                classes.put(m.group(3), new long[] {Long.parseLong(m.group(1)), bytes});
            }
        }
        histogram = null; // the histogram's text is garbage before the collection below
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new MemorySnapshot(heap, parseNmt(diagnostic("vmNativeMemory", "summary")), classes, 0);
    }

    static String diagnostic(String operation, String... args) {
        try {
            return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
                new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), operation,
                new Object[] {args}, new String[] {String[].class.getName()}));
        } catch (javax.management.JMException | RuntimeException e) {
            return "";
        }
    }

    /**
     * @param nmt the text of {@code VM.native_memory summary}
     * @return committed KiB by category, spaces in names turned into underscores
     */
    public static Map<String, Long> parseNmt(String nmt) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = NMT_LINE.matcher(nmt);
        while (m.find()) {
            out.put(m.group(1).trim().replace(' ', '_'), Long.parseLong(m.group(2)));
        }
        return out;
    }

    /** @return the {@code MEMORY ...} line the server prints */
    public String line() {
        StringBuilder b = new StringBuilder("MEMORY heap=").append(heapBytes);
        nmtKiB.forEach((k, v) -> b.append(" nmt.").append(k).append('=').append(v));
        classes.forEach((k, v) -> b.append(" class.").append(k).append('=').append(v[0]).append('/').append(v[1]));
        return b.toString();
    }

    /**
     * @param line   a {@code MEMORY ...} line
     * @param rssKiB the server's resident set, read by the lab as the line arrived
     * @return the snapshot
     */
    public static MemorySnapshot parse(String line, long rssKiB) {
        long heap = 0;
        Map<String, Long> nmt = new LinkedHashMap<>();
        Map<String, long[]> classes = new LinkedHashMap<>();
        for (String kv : line.substring(line.indexOf(' ') + 1).trim().split(" ")) {
            int eq = kv.lastIndexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = kv.substring(0, eq);
            String value = kv.substring(eq + 1);
            if (key.equals("heap")) {
                heap = Long.parseLong(value);
            } else if (key.startsWith("nmt.")) {
                nmt.put(key.substring(4), Long.parseLong(value));
            } else if (key.startsWith("class.")) {
                int slash = value.indexOf('/');
                classes.put(key.substring(6), new long[] {Long.parseLong(value.substring(0, slash)),
                    Long.parseLong(value.substring(slash + 1))});
            }
        }
        return new MemorySnapshot(heap, nmt, classes, rssKiB);
    }

    /** @return committed bytes of the categories in {@code which} */
    public long nmtBytes(Set<String> which) {
        return nmtKiB.entrySet().stream().filter(e -> which.contains(e.getKey())).mapToLong(Map.Entry::getValue)
            .sum() * 1024;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "MemorySnapshot[heap %d B, native %d B, %d classes, RSS %d KiB]",
            heapBytes, nmtBytes(NATIVE_CATEGORIES), classes.size(), rssKiB);
    }
}
