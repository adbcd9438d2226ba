package io.ringwire.lab;

import java.util.Arrays;

/** The servers the lab compares: the same echo logic, only the I/O model differs. */
public enum Competitor {
    RINGWIRE("ringwire"),
    NETTY_IO_URING("netty-io_uring"),
    NETTY_EPOLL("netty-epoll"),
    NETTY_NIO("netty-nio"),
    BLOCKING_PLATFORM("blocking-platform"),
    BLOCKING_VIRTUAL("blocking-virtual");

    private final String label;

    Competitor(String label) {
        this.label = label;
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
