package io.ringwire.lab;

import java.util.Arrays;
import java.util.List;

/**
 * The servers the lab compares: the same echo logic, only the I/O model differs. The first six serve every
 * workload and are the default; the Vert.x ones serve the http workload only (Vert.x's HTTP server on each of its
 * transports), when asked for by name.
 */
public enum Competitor {
    RINGWIRE("ringwire"),
    NETTY_IO_URING("netty-io_uring"),
    NETTY_EPOLL("netty-epoll"),
    NETTY_NIO("netty-nio"),
    BLOCKING_PLATFORM("blocking-platform"),
    BLOCKING_VIRTUAL("blocking-virtual"),
    VERTX_RINGWIRE("vertx-ringwire"),
    VERTX_IO_URING("vertx-io_uring"),
    VERTX_EPOLL("vertx-epoll");

    private final String label;

    Competitor(String label) {
        this.label = label;
    }

    /** @return the six servers every workload runs by default (not the Vert.x ones) */
    public static List<Competitor> standard() {
        return List.of(RINGWIRE, NETTY_IO_URING, NETTY_EPOLL, NETTY_NIO, BLOCKING_PLATFORM, BLOCKING_VIRTUAL);
    }

    /** @return whether this is Vert.x's HTTP server, which serves the http workload only */
    public boolean httpOnly() {
        return label.startsWith("vertx-");
    }

    /** @return the name used on the command line and in reports */
    public String label() {
        return label;
    }

    /**
     * @param label e.g. {@code "netty-epoll"}
     * @return the competitor
     * @throws IllegalArgumentException naming the valid labels
     */
    public static Competitor of(String label) {
        for (Competitor c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown server '" + label + "'; choose from "
            + Arrays.stream(values()).map(Competitor::label).toList());
    }
}
