package io.ringwire.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a seed text published for a workload, drawn beside the lab's own chart in the report so a reader sees the
 * claim and this machine's answer together. Numbers are copied from the seed texts in the project's shared seeds.
 *
 * @param workload the lab workload it belongs to
 * @param seed     which seed
 * @param title    what the figure shows
 * @param unit     the values' unit
 * @param values   label to value, in the seed's order
 * @param source   one sentence on where and how it was measured
 */
public record SeedFigure(String workload, String seed, String title, String unit, Map<String, Double> values,
                         String source) {
    /** Every figure the seeds give numbers for. */
    static final List<SeedFigure> ALL = List.of(
        new SeedFigure("echo", "001", "echo 500 clients × 128 B, one server thread", "req/s",
            map("netty-epoll/NIO", 80_820, "netty io_uring 0.0.1", 267_371),
            "Netty io_uring announcement (2020), Rust echo_bench on localhost."),
        new SeedFigure("redis", "003", "redis-benchmark SET 1 KiB, Netty redis codec", "req/s",
            map("epoll, 10 clients", 99_653, "io_uring, 10 clients", 87_189, "epoll, 50 clients", 104_847,
                "io_uring, 50 clients", 68_208),
            "Critique of Netty's io_uring transport: io_uring 12.5 % and 35 % slower, twice the CPU."),
        new SeedFigure("single-stream", "000", "one stream of 1 KiB messages, window 700K: heap", "MB",
            map("epoll", 35, "io_uring", 3_700),
            "RSocket on Netty 4.1.59 / io_uring 0.0.4, kernel 5.10; epoll 3.0M msg/s, io_uring 0.8-2.3M msg/s "
                + "with 67 GCs/min."),
        new SeedFigure("rpc-frontend", "000", "frontend, 8K connections × 100 streams, 1 msg/s: server CPU", "cores",
            map("epoll", 0.24, "io_uring", 0.18),
            "RSocket on Netty 4.1.59 / io_uring 0.0.4: io_uring clearly better at a fixed, low rate."),
        new SeedFigure("rpc-backend", "004", "thread per connection vs NIO, 1,700 connections (2008)", "req/s",
            map("blocking threads", 1_737, "best NIO", 1_379),
            "Seed 004 \"NIO is not faster than IO\"; seed 000's backend numbers were only \"io_uring slightly "
                + "worse CPU\", so the older blocking-vs-selector figure stands here."));

    private static Map<String, Double> map(Object... kv) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).doubleValue());
        }
        return m;
    }

    /**
     * @param workload a lab workload
     * @return the seed's figure for it, or null
     */
    static SeedFigure forWorkload(String workload) {
        return ALL.stream().filter(f -> f.workload().equals(workload)).findFirst().orElse(null);
    }
}
