package io.ringwire.lab.server;

import io.ringwire.lab.host.CServers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The servers the lab compares: the same echo logic, only the I/O model differs. The first six serve every
 * workload and are the default; {@code ringwire-minwait} is Ringwire with a minimum wait, which the fixed-load
 * workloads add by default (it trades latency for CPU, which only a fixed load shows fairly); the Vert.x and WebFlux
 * ones serve the http workload only (Vert.x's HTTP server on each of its transports; a Spring Boot WebFlux
 * application on Ringwire through ringwire-spring-boot, and on Reactor Netty's epoll), when asked for by name. The
 * two C servers ({@link CServers}) are the floor under them all, for echo and the frame workloads, when asked for by
 * name (and in the sweep). The three Lettuce ones are clients, the measured process of the redis-client workload
 * (Lettuce on Ringwire, on Netty epoll, on Netty io_uring, against one redis-server), and run there only.
 */
public enum Competitor {
    RINGWIRE("ringwire"),
    /**
     * Ringwire with {@code minWaitMicros} = {@value #MIN_WAIT_MICROS}: an idle loop, once asleep, is not woken by a
     * completion until that long has passed (or 64 are in), so at a moderate load several messages share a wake-up,
     * and each waits up to that long longer; with completions fewer than 4 per minimum it waits as Ringwire does.
     */
    RINGWIRE_MIN_WAIT("ringwire-minwait", "ringwire",
        List.of("-Dringwire.minWaitMicros=" + Competitor.MIN_WAIT_MICROS)),
    /**
     * Ringwire with {@code directDescriptors}: its connections live in the loops' fixed-file tables and hold no file
     * descriptor, so a loop holds as many as the open-file limit and the server as many times that as it has loops.
     */
    RINGWIRE_DIRECT("ringwire-direct", "ringwire", List.of("-Dringwire.directDescriptors=true")),
    NETTY_IO_URING("netty-io_uring"),
    NETTY_EPOLL("netty-epoll"),
    NETTY_NIO("netty-nio"),
    BLOCKING_PLATFORM("blocking-platform"),
    BLOCKING_VIRTUAL("blocking-virtual"),
    VERTX_RINGWIRE("vertx-ringwire"),
    VERTX_IO_URING("vertx-io_uring"),
    VERTX_EPOLL("vertx-epoll"),
    WEBFLUX_RINGWIRE("webflux-ringwire"),
    WEBFLUX_EPOLL("webflux-epoll"),
    /**
     * The lab's C io_uring server (src/main/c/uring_server.c, liburing): multishot accept, multishot receives into a
     * provided buffer ring, a send per connection with bytes to go, one submit-and-wait per iteration,
     * SINGLE_ISSUER|DEFER_TASKRUN. Echo and the frame workloads only; no JVM.
     */
    C_IO_URING(CServers.C_IO_URING),
    /** The lab's C epoll server (src/main/c/epoll_server.c): edge-triggered, read and write. Echo and frames only. */
    C_EPOLL(CServers.C_EPOLL),
    /**
     * A client, not a server: Lettuce on Ringwire (ringwire-lettuce's resources and client), the measured process of
     * the redis-client workload, which runs the clients only ({@link #client()}).
     */
    LETTUCE_RINGWIRE("lettuce-ringwire"),
    /** Lettuce on its own Netty epoll transport (Lettuce's choice with epoll loadable; its io_uring turned off). */
    LETTUCE_EPOLL("lettuce-epoll", "lettuce-epoll", List.of("-Dio.lettuce.core.iouring=false")),
    /**
     * Lettuce on its own Netty io_uring transport: Lettuce 7 prefers epoll where both load, and takes io_uring when
     * its epoll is turned off ({@code io.lettuce.core.epoll=false}; Lettuce's Transports and IOUringProvider).
     */
    LETTUCE_IO_URING("lettuce-io_uring", "lettuce-io_uring", List.of("-Dio.lettuce.core.epoll=false"));

    /** The minimum wait of {@link #RINGWIRE_MIN_WAIT}, µs: the setting measured in docs/benchmarks.md. */
    public static final int MIN_WAIT_MICROS = 200;

    private final String label;
    private final String transport;
    private final List<String> properties;

    Competitor(String label) {
        this(label, label, List.of());
    }

    Competitor(String label, String transport, List<String> properties) {
        this.label = label;
        this.transport = transport;
        this.properties = properties;
    }

    /**
     * @param servers servers of an experiment
     * @return them with {@link #RINGWIRE_MIN_WAIT} after {@link #RINGWIRE}, for the workloads at a fixed offered
     *         load; unchanged when Ringwire is not among them or the variant already is
     */
    public static List<Competitor> withMinWait(List<Competitor> servers) {
        if (!servers.contains(RINGWIRE) || servers.contains(RINGWIRE_MIN_WAIT)) {
            return servers;
        }
        List<Competitor> list = new ArrayList<>(servers);
        list.add(list.indexOf(RINGWIRE) + 1, RINGWIRE_MIN_WAIT);
        return List.copyOf(list);
    }

    /**
     * @param servers servers of an experiment
     * @return them with {@link #RINGWIRE_DIRECT} after {@link #RINGWIRE}, for the conns workload; unchanged when
     *         Ringwire is not among them or the variant already is
     */
    public static List<Competitor> withDirect(List<Competitor> servers) {
        if (!servers.contains(RINGWIRE) || servers.contains(RINGWIRE_DIRECT)) {
            return servers;
        }
        List<Competitor> list = new ArrayList<>(servers);
        list.add(list.indexOf(RINGWIRE) + 1, RINGWIRE_DIRECT);
        return List.copyOf(list);
    }

    /** @return whether each connection costs this server a file descriptor (all but Ringwire with direct ones) */
    public boolean holdsAnFdPerConnection() {
        return this != RINGWIRE_DIRECT;
    }

    /** @return the examples' name of the transport this server runs on (its label, but for variants) */
    public String transport() {
        return transport;
    }

    /** @return system properties this server's JVM gets beyond the flags every server gets (a variant's setting) */
    public List<String> properties() {
        return properties;
    }

    /** @return the six servers every workload runs by default (not the Vert.x and WebFlux ones) */
    public static List<Competitor> standard() {
        return List.of(RINGWIRE, NETTY_IO_URING, NETTY_EPOLL, NETTY_NIO, BLOCKING_PLATFORM, BLOCKING_VIRTUAL);
    }

    /** @return the servers on a Netty transport (what a workload that needs Netty's codecs, quic, runs on) */
    public static List<Competitor> nettyTransports() {
        return List.of(RINGWIRE, NETTY_IO_URING, NETTY_EPOLL, NETTY_NIO);
    }

    /** @return the sweep's servers: every Java server on a Netty transport, then the two C servers */
    public static List<Competitor> sweep() {
        return List.of(RINGWIRE, NETTY_IO_URING, NETTY_EPOLL, NETTY_NIO, C_IO_URING, C_EPOLL);
    }

    /** @return whether this is one of the C servers, which run no JVM and serve echo and the frame workloads only */
    public boolean inC() {
        return this == C_IO_URING || this == C_EPOLL;
    }

    /** @return the clients the redis-client workload compares: Lettuce on Ringwire, on epoll, on io_uring */
    public static List<Competitor> lettuceClients() {
        return List.of(LETTUCE_RINGWIRE, LETTUCE_EPOLL, LETTUCE_IO_URING);
    }

    /** @return whether this is a client (redis-client's Lettuce), which runs in the redis-client workload only */
    public boolean client() {
        return client(label);
    }

    /**
     * @param label a competitor's label
     * @return whether it is a client of the redis-client workload
     */
    public static boolean client(String label) {
        return label.startsWith("lettuce-");
    }

    /**
     * @param label a competitor's label
     * @return whether it is a framework (Vert.x, WebFlux, Lettuce) on a transport, compared with the same framework on
     *         the others ({@code vertx-ringwire} with {@code vertx-epoll} and {@code vertx-io_uring})
     */
    public static boolean onFramework(String label) {
        return httpOnly(label) || client(label);
    }

    /** @return whether this is Vert.x's HTTP server or a WebFlux application, which serve the http workload only */
    public boolean httpOnly() {
        return httpOnly(label);
    }

    /**
     * @param label a server's label
     * @return whether it is Vert.x's HTTP server or a WebFlux application
     */
    public static boolean httpOnly(String label) {
        return label.startsWith("vertx-") || label.startsWith("webflux-");
    }

    /** @return the name used on the command line and in reports */
    public String label() {
        return label;
    }

    /**
     * @param label a server's label, as in a run's results
     * @return the transport it runs on: a variant's (ringwire-minwait: ringwire), else the label itself (also for a
     *         label no competitor has)
     */
    public static String transportOf(String label) {
        Competitor c = find(label);
        return c == null ? label : c.transport;
    }

    private static Competitor find(String label) {
        for (Competitor c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        return null;
    }

    /**
     * @param label e.g. {@code "netty-epoll"}
     * @return the competitor
     * @throws IllegalArgumentException naming the valid labels
     */
    public static Competitor of(String label) {
        Competitor c = find(label);
        if (c != null) {
            return c;
        }
        throw new IllegalArgumentException("unknown server '" + label + "'; choose from "
            + Arrays.stream(values()).map(Competitor::label).toList());
    }
}
