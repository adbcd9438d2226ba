package io.ringwire.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.transport.RingwireCounters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Ringwire's counters ({@link RingwireCounters}) as Micrometer meters, for any {@link MeterRegistry}: {@code new
 * RingwireMeterBinder().bindTo(registry)}. Spring Boot's auto-configuration ({@code ringwire-spring-boot}) binds it
 * by itself.
 *
 * <p>Each Ringwire event loop of the JVM gets its own meters, tagged {@code loop} with the loop's thread name (the
 * {@code name} of its JMX object, {@code io.ringwire:type=EventLoop,name="<loop thread>"}): a counter for each total
 * ({@code ringwire.loop.enters}, {@code ringwire.loop.recv.bytes}, ...: {@link FunctionCounter}s) and a gauge for
 * each level ({@code ringwire.loop.registrations}, ...). A loop that starts after binding (Reactor Netty makes its
 * loops when the server starts) gets its meters as it starts; a loop that ends takes them out of the registry. The
 * sum over the {@code loop} tag is the JVM's total, as a registry without tags (or Actuator's metrics endpoint)
 * shows it. Four gauges have no tag: the count of loops, {@code ringwire.loops}, and the ratios of totals over every
 * loop, {@code ringwire.loop.sqes.per.enter}, {@code ringwire.loop.cqes.per.enter} and
 * {@code ringwire.loop.bytes.per.recv} (a ratio is not a sum of the loops' ratios). The meters read the counters
 * when the registry asks; the loops do nothing more. docs/reference.md lists every meter.
 *
 * <p>{@link #close()} takes every meter this binder registered out of the registries it was bound to and stops
 * following the loops.
 */
public final class RingwireMeterBinder implements MeterBinder, AutoCloseable {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireMeterBinder.class);

    /** The tag that names a loop: its thread name, as in its JMX object name. */
    public static final String LOOP_TAG = "loop";

    /** A total since the loop started: a {@link FunctionCounter} per loop. */
    private record Total(String name, String description, String unit, ToLongFunction<RingwireCounters> counter) {
    }

    /** A level the loop holds now: a {@link Gauge} per loop. */
    private record Level(String name, String description, ToLongFunction<RingwireCounters> value) {
    }

    private static final String BYTES = BaseUnits.BYTES;

    /** Every counter of {@link RingwireCounters} that only grows. */
    private static final List<Total> TOTALS = List.of(
        total("iterations", "event-loop iterations", null, RingwireCounters::iterations),
        total("enters", "io_uring_enter system calls", null, RingwireCounters::enters),
        total("sqes", "submission queue entries the kernel consumed", null, RingwireCounters::sqes),
        total("cqes", "completion queue entries reaped", null, RingwireCounters::cqes),
        total("recvs", "receive completions that carried data", null, RingwireCounters::recvs),
        total("recv.bytes", "bytes received", BYTES, RingwireCounters::recvBytes),
        total("direct.recvs", "receives straight into the allocator's buffers (bulk streams)", null,
            RingwireCounters::directRecvs),
        total("dry.ring.fallbacks", "receives into a buffer of the connection's own after the shared ring ran dry",
            null, RingwireCounters::dryRingFallbacks),
        total("writes", "write submissions completed", null, RingwireCounters::writes),
        total("inline.writes", "writes a bulk stream made at once with sendmsg(2) when its read loop ended", null,
            RingwireCounters::inlineWrites),
        total("write.iovecs", "iovecs handed to the writes", null, RingwireCounters::writeIovecs),
        total("write.bytes", "bytes written", BYTES, RingwireCounters::writeBytes),
        total("buffer.ring.exhausted", "receives that found the provided buffer ring empty", null,
            RingwireCounters::bufferRingExhausted),
        total("buffer.ring.shrinks", "times the provided buffer ring began shrinking after a burst", null,
            RingwireCounters::bufferRingShrinks),
        total("buffer.ring.released.bytes", "receive-buffer pages the shrinks gave back to the system", BYTES,
            RingwireCounters::bufferRingReleasedBytes),
        total("accepts", "connections accepted", null, RingwireCounters::accepts),
        total("accept.backoffs", "accepts paused for lack of file descriptors", null,
            RingwireCounters::acceptBackoffs),
        total("handler.failures", "exceptions and errors handlers threw into the loops, which went on", null,
            RingwireCounters::handlerFailures),
        total("cq.overflows", "iterations that found the completion queue overflowed", null,
            RingwireCounters::cqOverflows),
        total("sq.refusals", "submissions the kernel refused for the moment (retried)", null,
            RingwireCounters::sqRefusals),
        total("close.submits", "extra enters so that no queued submission outlives its descriptor", null,
            RingwireCounters::closeSubmits),
        total("fd.installs", "file descriptors installed for a call on a direct descriptor, closed at once", null,
            RingwireCounters::fdInstalls),
        total("msg.ring.transfers", "direct descriptors moved to another loop's table (MSG_RING)", null,
            RingwireCounters::msgRingTransfers),
        total("sync.enters", "enters made to complete a synchronous call on a direct descriptor", null,
            RingwireCounters::syncEnters),
        total("min.waits", "sleeps with a minimum wait (minWaitMicros)", null, RingwireCounters::minWaits),
        total("send.waits", "datagram sends that waited for room at a full peer", null, RingwireCounters::sendWaits),
        total("zero.copy.sends", "zero-copy sends", null, RingwireCounters::zeroCopySends),
        total("zero.copy.copied", "zero-copy sends the kernel copied after all", null,
            RingwireCounters::zeroCopyCopied),
        total("zero.copy.refused", "zero-copy sends the kernel refused, sent again with a copy", null,
            RingwireCounters::zeroCopyRefused),
        total("segmented.sends", "datagram sends the kernel cut into segments (UDP GSO)", null,
            RingwireCounters::segmentedSends),
        total("gro.batches", "receives that brought several datagrams of one sender (UDP_GRO)", null,
            RingwireCounters::groBatches),
        total("sendfile.bytes", "bytes of FileRegions sent with sendfile(2)", BYTES, RingwireCounters::sendfileBytes),
        total("file.region.mapped.bytes", "bytes of FileRegions sent from a memory mapping", BYTES,
            RingwireCounters::fileRegionMappedBytes),
        total("file.region.copied.bytes", "bytes of FileRegions copied through their transferTo", BYTES,
            RingwireCounters::fileRegionCopiedBytes));

    /** Every counter of {@link RingwireCounters} that goes up and down. */
    private static final List<Level> LEVELS = List.of(
        level("registrations", "channels registered with the loop", RingwireCounters::registrations),
        level("buffer.ring.buffers", "receive buffers the provided buffer ring has in use",
            RingwireCounters::bufferRingBuffers),
        level("fixed.files", "connections in the loop's fixed-file table", RingwireCounters::fixedFiles),
        level("fixed.file.slots", "slots of the loop's fixed-file table", RingwireCounters::fixedFileSlots),
        level("direct.descriptors", "connections on direct descriptors, holding no fd",
            RingwireCounters::directDescriptors));

    private static Total total(String name, String description, String unit, ToLongFunction<RingwireCounters> c) {
        return new Total("ringwire.loop." + name, description, unit, c);
    }

    private static Level level(String name, String description, ToLongFunction<RingwireCounters> value) {
        return new Level("ringwire.loop." + name, description, value);
    }

    private final Tags tags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    /** Meters with the {@code loop} tag alone (four without it). */
    public RingwireMeterBinder() {
        this(Tags.empty());
    }

    /** @param tags tags every meter carries besides {@code loop} (e.g. the application's name) */
    public RingwireMeterBinder(Iterable<Tag> tags) {
        this.tags = Tags.of(tags);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Bound b = new Bound(registry);
        bound.add(b);
        b.bindAggregates();
        RingwireCounters.addListener(b); // the loops running now at once, the others as they start
    }

    @Override
    public void close() {
        for (Bound b : bound) {
            RingwireCounters.removeListener(b);
            b.removeAll();
        }
        bound.clear();
    }

    /** The meters of one registry: the loops' own, by their counters, and the aggregates. */
    private final class Bound implements RingwireCounters.Listener {
        private final MeterRegistry registry;
        private final List<Meter> aggregates = new ArrayList<>();
        private final Map<RingwireCounters, List<Meter>> perLoop = new IdentityHashMap<>();
        /** The loop each {@code loop} tag value belongs to: two live loops with one thread name share no meter. */
        private final Map<String, RingwireCounters> byName = new HashMap<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        synchronized void bindAggregates() {
            // the state objects are this binder's: Micrometer holds them weakly, the binder strongly
            aggregates.add(Gauge.builder("ringwire.loops", this, x -> RingwireCounters.all().size()).tags(tags)
                .description("Ringwire event loops running in this JVM").register(registry));
            aggregates.add(ratio("ringwire.loop.sqes.per.enter",
                "submission queue entries per io_uring_enter over every loop (the batch)", RingwireCounters::sqes,
                RingwireCounters::enters));
            aggregates.add(ratio("ringwire.loop.cqes.per.enter",
                "completion queue entries per io_uring_enter over every loop", RingwireCounters::cqes,
                RingwireCounters::enters));
            aggregates.add(ratio("ringwire.loop.bytes.per.recv", "bytes per receive over every loop",
                RingwireCounters::recvBytes, RingwireCounters::recvs));
        }

        private Gauge ratio(String name, String description, ToLongFunction<RingwireCounters> numerator,
                            ToLongFunction<RingwireCounters> denominator) {
            ToDoubleFunction<Bound> f = x -> {
                long n = 0;
                long d = 0;
                for (RingwireCounters c : RingwireCounters.all()) {
                    n += numerator.applyAsLong(c);
                    d += denominator.applyAsLong(c);
                }
                return d == 0 ? 0 : (double) n / d;
            };
            return Gauge.builder(name, this, f).tags(tags).description(description).register(registry);
        }

        @Override
        public synchronized void loopStarted(RingwireCounters counters) {
            if (perLoop.containsKey(counters)) {
                return; // resumed on another thread: its meters keep their first name, as its JMX object does
            }
            String name = counters.name();
            if (byName.containsKey(name)) {
                logger.warn("two live Ringwire loops are named {}: the second has no meters", name);
                return;
            }
            Tags loopTags = tags.and(LOOP_TAG, name);
            List<Meter> meters = new ArrayList<>(TOTALS.size() + LEVELS.size());
            // the counters are the meters' state: held by the loop while it runs and by this map until it ends
            for (Total t : TOTALS) {
                meters.add(FunctionCounter.builder(t.name(), counters, c -> t.counter().applyAsLong(c))
                    .tags(loopTags).description(t.description()).baseUnit(t.unit()).register(registry));
            }
            for (Level l : LEVELS) {
                meters.add(Gauge.builder(l.name(), counters, c -> l.value().applyAsLong(c))
                    .tags(loopTags).description(l.description()).register(registry));
            }
            perLoop.put(counters, meters);
            byName.put(name, counters);
        }

        @Override
        public synchronized void loopEnded(RingwireCounters counters) {
            List<Meter> meters = perLoop.remove(counters);
            if (meters == null) {
                return;
            }
            byName.values().remove(counters);
            meters.forEach(registry::remove);
        }

        synchronized void removeAll() {
            perLoop.values().forEach(ms -> ms.forEach(registry::remove));
            perLoop.clear();
            byName.clear();
            aggregates.forEach(registry::remove);
            aggregates.clear();
        }
    }
}
