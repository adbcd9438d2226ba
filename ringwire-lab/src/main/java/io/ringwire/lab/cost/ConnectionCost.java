package io.ringwire.lab.cost;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.MemorySnapshot;
import io.ringwire.lab.server.ProcessStats;
import io.ringwire.lab.results.Stats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What one server's connections cost it in memory, from one run of the conns workload (the RSocket evaluation's front
 * end at scale): the difference between a snapshot with every connection open and one taken before any (after a
 * short priming load, so classes, JIT and pools are already there), divided by the connections; and how fast they
 * were set up. The kernel's memory
 * for the connections is apart ({@code kernelPerConn}): it is not the process's, and the machine's counts both ends.
 *
 * @param variant          the workload's parameters
 * @param server           competitor label
 * @param round            round number
 * @param conns            connections open at the second snapshot
 * @param connectsPerSec   connections set up per second (the generator's 128 CONNECTs in flight, accept included)
 * @param heapPerConn      live heap bytes per connection (after a full collection)
 * @param nativePerConn    bytes committed outside the heap per connection: thread stacks, malloc, Unsafe and FFM
 *                         allocations, monitors ({@link MemorySnapshot#NATIVE_CATEGORIES})
 * @param gcPerConn        the collector's own structures per connection (remembered sets, card tables)
 * @param rssPerConn       resident set growth per connection (includes heap pages touched by garbage)
 * @param kernelPerConn    the kernel's memory per connection, machine-wide, both ends of it (the load generator's
 *                         too): socket buffers ({@code /proc/net/sockstat}) and, as root, each socket's objects
 *                         ({@link ProcessStats#SOCKET_SLABS}: socket, inode, file, dentry, epoll item); NaN if unread
 * @param transportPerConn live heap bytes per connection in the transport's own classes (Ringwire's, Netty io_uring's,
 *                         Netty epoll's, NIO's channel classes): its per-channel state
 * @param nettyPerConn     the rest of Netty's classes per connection: pipeline, contexts, config, outbound buffer
 * @param otherPerConn     everything else per connection: JDK objects and arrays (whoever holds them)
 * @param top              the classes that grew most per connection
 */
public record ConnectionCost(String variant, String server, int round, int conns, double connectsPerSec,
                             double heapPerConn, double nativePerConn, double gcPerConn, double rssPerConn,
                             double kernelPerConn, double transportPerConn, double nettyPerConn, double otherPerConn,
                             List<ClassCost> top) {
    /**
     * One class's growth per connection.
     *
     * @param name             class name as the histogram gives it
     * @param instancesPerConn live instances per connection
     * @param bytesPerConn     their bytes per connection
     */
    public record ClassCost(String name, double instancesPerConn, double bytesPerConn) { }

    /** How many classes {@link #top} keeps. */
    static final int TOP = 30;

    /** @return heap, native and GC structures together: what the "heap + native" per connection means */
    public double totalPerConn() {
        return heapPerConn + nativePerConn + gcPerConn;
    }

    /**
     * @param variant        the workload's parameters
     * @param server         competitor label
     * @param round          round
     * @param conns          connections open in {@code with}
     * @param connectSeconds how long setting them up took
     * @param without        before any connection
     * @param with           with every connection open
     * @param kernelWithout  {@link ProcessStats#kernelSocketBytes()} before any connection
     * @param kernelWith     and with every connection open
     * @return the cost per connection
     */
    public static ConnectionCost of(String variant, String server, int round, int conns, double connectSeconds,
                             MemorySnapshot without, MemorySnapshot with, double kernelWithout, double kernelWith) {
        double n = conns;
        String transport = transportPackage(server);
        double own = 0;
        double netty = 0;
        double other = 0;
        List<ClassCost> grew = new ArrayList<>();
        java.util.Set<String> names = new java.util.LinkedHashSet<>(with.classes().keySet());
        names.addAll(without.classes().keySet());
        for (String name : names) {
            long[] a = without.classes().getOrDefault(name, new long[2]);
            long[] b = with.classes().getOrDefault(name, new long[2]);
            double bytes = (b[1] - a[1]) / n;
            if (transport != null && name.startsWith(transport)) {
                own += bytes;
            } else if (name.startsWith("io.netty.")) {
                netty += bytes;
            } else {
                other += bytes;
            }
            grew.add(new ClassCost(name, (b[0] - a[0]) / n, bytes));
        }
        grew.sort(Comparator.comparingDouble(ClassCost::bytesPerConn).reversed());
        return new ConnectionCost(variant, server, round, conns, conns / connectSeconds,
            (with.heapBytes() - without.heapBytes()) / n,
            (with.nmtBytes(MemorySnapshot.NATIVE_CATEGORIES) - without.nmtBytes(MemorySnapshot.NATIVE_CATEGORIES)) / n,
            (with.nmtBytes(MemorySnapshot.GC_CATEGORIES) - without.nmtBytes(MemorySnapshot.GC_CATEGORIES)) / n,
            (with.rssKiB() - without.rssKiB()) * 1024.0 / n, (kernelWith - kernelWithout) / n, own, netty, other,
            List.copyOf(grew.subList(0, Math.min(TOP, grew.size()))));
    }

    /**
     * @param server competitor label
     * @return the package prefix of that transport's own classes; null for the blocking servers (no transport)
     */
    public static String transportPackage(String server) {
        return switch (Competitor.transportOf(server)) { // a variant's classes are its transport's
            case "ringwire", "vertx-ringwire", "webflux-ringwire" -> "io.ringwire.";
            case "netty-io_uring", "vertx-io_uring" -> "io.netty.channel.uring.";
            case "netty-epoll", "vertx-epoll", "webflux-epoll" -> "io.netty.channel.epoll.";
            case "netty-nio" -> "io.netty.channel.socket.nio.";
            default -> null;
        };
    }

    /**
     * Medians over rounds, one per (variant, server), in the order first seen.
     *
     * @param costs every run's
     * @return the medians, each with the top classes of its first run
     */
    public static List<ConnectionCost> medians(List<ConnectionCost> costs) {
        Map<String, List<ConnectionCost>> groups = new LinkedHashMap<>();
        for (ConnectionCost c : costs) {
            groups.computeIfAbsent(c.variant + "\u0000" + c.server, k -> new ArrayList<>()).add(c);
        }
        List<ConnectionCost> out = new ArrayList<>();
        for (List<ConnectionCost> g : groups.values()) {
            ConnectionCost f = g.get(0);
            out.add(new ConnectionCost(f.variant, f.server, g.size(), f.conns, median(g, ConnectionCost::connectsPerSec),
                median(g, ConnectionCost::heapPerConn), median(g, ConnectionCost::nativePerConn),
                median(g, ConnectionCost::gcPerConn), median(g, ConnectionCost::rssPerConn),
                median(g, ConnectionCost::kernelPerConn),
                median(g, ConnectionCost::transportPerConn), median(g, ConnectionCost::nettyPerConn),
                median(g, ConnectionCost::otherPerConn), f.top));
        }
        return out;
    }

    private static double median(List<ConnectionCost> g, ToDoubleFunction<ConnectionCost> f) {
        return Stats.median(g.stream().map(f::applyAsDouble).toList());
    }

    /**
     * @param costs every run's
     * @return the terminal table (medians; {@code runs} in place of the round), then each server's top classes
     */
    public static String table(List<ConnectionCost> costs) {
        StringBuilder b = new StringBuilder();
        String variant = null;
        for (ConnectionCost c : medians(costs)) {
            if (!c.variant.equals(variant)) {
                variant = c.variant;
                b.append("\n== conns · ").append(variant).append(" · memory per connection (live after a full GC, "
                    + "with the connections minus before them; bytes; kernel: the machine's, both ends) ==\n");
                b.append(String.format(Locale.ROOT, "%-18s %4s %10s %8s %8s %6s %8s %8s %8s %10s %8s %8s%n",
                    "server", "runs", "set-up/s", "heap", "native", "GC", "total", "RSS", "kernel", "transport",
                    "netty", "jdk"));
            }
            b.append(String.format(Locale.ROOT, "%-18s %4d %,10.0f %,8.0f %,8.0f %,6.0f %,8.0f %,8.0f %8s %10s "
                    + "%,8.0f %,8.0f%n", c.server, c.round, c.connectsPerSec, c.heapPerConn, c.nativePerConn,
                c.gcPerConn, c.totalPerConn(), c.rssPerConn, Double.isNaN(c.kernelPerConn) ? "-"
                    : String.format(Locale.ROOT, "%,.0f", c.kernelPerConn),
                Double.isNaN(c.transportPerConn) || transportPackage(c.server) == null
                    ? "-" : String.format(Locale.ROOT, "%,.0f", c.transportPerConn), c.nettyPerConn,
                c.otherPerConn));
        }
        for (ConnectionCost c : medians(costs)) {
            b.append(String.format(Locale.ROOT, "top classes per connection, %s (%s): ", c.server, c.variant));
            b.append(String.join(", ", c.top.stream().limit(6).map(t -> String.format(Locale.ROOT, "%s %.1f × = %.0f B",
                shortName(t.name()), t.instancesPerConn(), t.bytesPerConn())).toList())).append('\n');
        }
        return b.toString();
    }

    /** @return {@code a.b.C$D} as {@code C$D}; arrays as the histogram names them */
    public static String shortName(String name) {
        return name.startsWith("[") ? name : name.substring(name.lastIndexOf('.') + 1);
    }
}
