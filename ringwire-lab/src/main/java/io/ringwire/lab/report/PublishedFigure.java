package io.ringwire.lab.report;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.results.Sources;
import io.ringwire.lab.results.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What one of the published texts the lab's workloads come from ({@link Sources}) gave as a figure for a workload,
 * drawn beside the lab's own chart in the report so a reader sees the claim and this machine's answer together.
 * Numbers are copied from the texts.
 *
 * @param workload the lab workload it belongs to
 * @param source   the text's short name, e.g. {@link Sources#NETTY}
 * @param linked   its short name and link, for the terminal, e.g. {@link Sources#NETTY_LINKED}
 * @param cited    its short name, title and link, for the report, e.g. {@link Sources#NETTY_CITED}
 * @param title    what the figure shows
 * @param unit     the values' unit
 * @param values   label to value, in the text's order
 * @param about    one sentence on where and how it was measured
 * @param claims   the ratios the text's figure states, each set beside the same ratio on this machine
 */
public record PublishedFigure(String workload, String source, String linked, String cited, String title, String unit,
                              Map<String, Double> values, String about, List<Claim> claims) {
    /** A figure of this machine's servers that a published claim is set beside. */
    public enum Measure {
        RATE("rate", Summary.Row::rate),
        SERVER_CPU("server CPU", Summary.Row::serverUtil),
        HEAP_PEAK("heap peak", Summary.Row::heapPeakMiB);

        private final String label;
        private final ToDoubleFunction<Summary.Row> figure;

        Measure(String label, ToDoubleFunction<Summary.Row> figure) {
            this.label = label;
            this.figure = figure;
        }
    }

    /**
     * One ratio a published text states ({@code of} over {@code over} among its values, in {@code what}) and where the
     * lab measures the same: its servers {@code labOf} over {@code labOver} in {@code measure}, in the variants the
     * claim is about.
     *
     * @param variant  a part of the lab's variant the claim is about (redis: "10 clients"); "" for every variant
     * @param openLoop whether the claim is about a fixed offered load (else about a saturated one)
     * @param of       the text's numerator, a key of its values
     * @param over     the text's denominator
     * @param what     what the text's values are, for the sentence
     * @param measure  the lab's figure
     * @param labOf    the lab's servers set against {@code labOver}
     * @param labOver  the lab's counterpart of {@code over}
     */
    public record Claim(String variant, boolean openLoop, String of, String over, String what, Measure measure,
                       List<String> labOf, String labOver) { }

    /**
     * A published ratio and the same ratio on this machine.
     *
     * @param published e.g. "Netty's announcement (https://netty.io/...): netty io_uring 0.0.1 3.31×
     *                  netty-epoll/NIO's req/s"
     * @param here      e.g. "here, rate: netty-io_uring 1.02×, ringwire 1.05× netty-epoll's", or why it was not
     *                  measured
     */
    public record Comparison(String published, String here) {
        @Override
        public String toString() {
            return published + "; " + here;
        }
    }

    /** Every figure the published texts give numbers for. */
    static final List<PublishedFigure> ALL = List.of(
        new PublishedFigure("echo", Sources.NETTY, Sources.NETTY_LINKED, Sources.NETTY_CITED,
            "echo 500 clients × 128 B, one server thread", "req/s",
            map("netty-epoll/NIO", 80_820, "netty io_uring 0.0.1", 267_371),
            "Netty's incubator io_uring transport 0.0.1 against epoll/NIO (2020), Rust echo_bench on localhost.",
            List.of(nettyIoUring("", false, "netty io_uring 0.0.1", "netty-epoll/NIO", "req/s", Measure.RATE))),
        new PublishedFigure("redis", Sources.CRITIQUE, Sources.CRITIQUE_LINKED, Sources.CRITIQUE_CITED,
            "redis-benchmark SET 1 KiB, Netty redis codec", "req/s",
            map("epoll, 10 clients", 99_653, "io_uring, 10 clients", 87_189, "epoll, 50 clients", 104_847,
                "io_uring, 50 clients", 68_208),
            "Netty's incubator io_uring transport: 12.5 % and 35 % slower than epoll, twice the CPU.",
            List.of(nettyIoUring("10 clients", false, "io_uring, 10 clients", "epoll, 10 clients", "req/s",
                    Measure.RATE),
                nettyIoUring("50 clients", false, "io_uring, 50 clients", "epoll, 50 clients", "req/s",
                    Measure.RATE))),
        new PublishedFigure("single-stream", Sources.RSOCKET, Sources.RSOCKET_LINKED, Sources.RSOCKET_CITED,
            "one stream of 1 KiB messages, window 700K: heap", "MB",
            map("epoll", 35, "io_uring", 3_700),
            "RSocket on Netty 4.1.59 / io_uring 0.0.4, kernel 5.10; epoll 3.0M msg/s, io_uring 0.8-2.3M msg/s "
                + "with 67 GCs/min.",
            List.of(nettyIoUring("", false, "io_uring", "epoll", "heap", Measure.HEAP_PEAK))),
        new PublishedFigure("rpc-frontend", Sources.RSOCKET, Sources.RSOCKET_LINKED, Sources.RSOCKET_CITED,
            "frontend, 8K connections × 100 streams, 1 msg/s: server CPU", "cores",
            map("epoll", 0.24, "io_uring", 0.18),
            "RSocket on Netty 4.1.59 / io_uring 0.0.4: io_uring clearly better at a fixed, low rate.",
            List.of(nettyIoUring("", true, "io_uring", "epoll", "server CPU", Measure.SERVER_CPU))),
        new PublishedFigure("rpc-backend", Sources.TYMA, Sources.TYMA_LINKED, Sources.TYMA_CITED,
            "thread per connection vs NIO, 1,700 connections (2008)", "req/s",
            map("blocking threads", 1_737, "best NIO", 1_379),
            "Blocking threads against NIO selectors; the RSocket evaluation's back-end numbers were only \"io_uring "
                + "slightly worse CPU\", so the older blocking-vs-selector figure stands here.",
            List.of(new Claim("", false, "blocking threads", "best NIO", "req/s", Measure.RATE,
                List.of(Competitor.BLOCKING_PLATFORM.label()), Competitor.NETTY_NIO.label()))));

    /** A claim about Netty's io_uring against epoll: set beside netty-io_uring's and Ringwire's figure over epoll's. */
    private static Claim nettyIoUring(String variant, boolean openLoop, String of, String over, String what,
                                      Measure measure) {
        return new Claim(variant, openLoop, of, over, what, measure,
            List.of(Competitor.NETTY_IO_URING.label(), Competitor.RINGWIRE.label()), Competitor.NETTY_EPOLL.label());
    }

    private static Map<String, Double> map(Object... kv) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).doubleValue());
        }
        return m;
    }

    /**
     * @param workload a lab workload
     * @return the published figure for it, or null
     */
    static PublishedFigure forWorkload(String workload) {
        return ALL.stream().filter(f -> f.workload().equals(workload)).findFirst().orElse(null);
    }

    /**
     * @param s one experiment's summary
     * @return the published ratio for that experiment and the same ratio here; null when no text gave a figure for
     *         that workload and load
     */
    static Comparison against(Summary s) {
        PublishedFigure f = forWorkload(s.workload());
        if (f == null) {
            return null;
        }
        for (Claim c : f.claims()) {
            if (c.openLoop() != s.openLoop() || !s.variant().contains(c.variant())) {
                continue;
            }
            String published = String.format(Locale.ROOT, "%s: %s %s %s's %s", Sources.capitalized(f.linked()),
                c.of(), times(f.values().get(c.of()) / f.values().get(c.over())), c.over(), c.what());
            Summary.Row over = s.row(c.labOver());
            List<String> here = new ArrayList<>();
            for (String server : c.labOf()) {
                Summary.Row of = s.row(server);
                if (of != null && over != null) {
                    here.add(server + " " + times(Stats.ratio(c.measure().figure.applyAsDouble(of),
                        c.measure().figure.applyAsDouble(over))));
                }
            }
            return new Comparison(published, here.isEmpty() ? "not measured here: " + c.labOf().get(0) + " or "
                + c.labOver() + " did not run" : "here, " + c.measure().label + ": " + String.join(", ", here) + " "
                + c.labOver() + "'s");
        }
        return null;
    }

    /** @return "3.31×", or "106×" from 10 up */
    private static String times(double ratio) {
        return Double.isNaN(ratio) ? "-×" : String.format(Locale.ROOT, ratio >= 10 ? "%.0f×" : "%.2f×", ratio);
    }
}
