package io.ringwire.spring.boot;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringwire.transport.RingwireCounters;

import java.util.function.ToLongFunction;

/**
 * Ringwire's counters ({@link RingwireCounters}) as Micrometer meters, summed over every Ringwire event loop running
 * in the JVM: {@code ringwire.loop.enters} (io_uring_enter calls), {@code ringwire.loop.sqes.per.enter} (the batch
 * each enter submits), receives, writes, bytes, accepts, and the rest. What only grows is a {@link FunctionCounter},
 * what goes up and down (live loops, registrations, buffers, ratios) a {@link Gauge}; each reads the counters when
 * the registry asks, so loops made after binding (Reactor Netty makes them when the server starts) are counted too.
 * One loop's figures are in JMX ({@code -Dringwire.jmx=true}, {@code io.ringwire.transport.RingwireLoopMXBean}).
 *
 * <p>Spring Boot binds it to its registries by itself ({@link RingwireMetricsAutoConfiguration}); elsewhere:
 * {@code new RingwireMeterBinder().bindTo(registry)}.
 */
public final class RingwireMeterBinder implements MeterBinder {
    /** Totals since each loop started (a loop that ends takes its share with it, as a restarted process would). */
    private enum Total {
        ITERATIONS("iterations", "event-loop iterations", null, RingwireCounters::iterations),
        ENTERS("enters", "io_uring_enter system calls", null, RingwireCounters::enters),
        SQES("sqes", "submission queue entries the kernel consumed", null, RingwireCounters::sqes),
        CQES("cqes", "completion queue entries reaped", null, RingwireCounters::cqes),
        RECVS("recvs", "receive completions that carried data", null, RingwireCounters::recvs),
        RECV_BYTES("recv.bytes", "bytes received", BaseUnits.BYTES, RingwireCounters::recvBytes),
        DIRECT_RECVS("direct.recvs", "receives straight into the allocator's buffers (bulk streams)", null,
            RingwireCounters::directRecvs),
        WRITES("writes", "write submissions completed", null, RingwireCounters::writes),
        WRITE_BYTES("write.bytes", "bytes written", BaseUnits.BYTES, RingwireCounters::writeBytes),
        ACCEPTS("accepts", "connections accepted", null, RingwireCounters::accepts),
        ACCEPT_BACKOFFS("accept.backoffs", "accepts paused for lack of file descriptors", null,
            RingwireCounters::acceptBackoffs),
        HANDLER_FAILURES("handler.failures", "exceptions and errors handlers threw into the loops, which went on", null,
            RingwireCounters::handlerFailures),
        BUFFER_RING_EXHAUSTED("buffer.ring.exhausted", "receives that found the provided buffer ring empty", null,
            RingwireCounters::bufferRingExhausted),
        CQ_OVERFLOWS("cq.overflows", "iterations that found the completion queue overflowed", null,
            RingwireCounters::cqOverflows),
        SQ_REFUSALS("sq.refusals", "submissions the kernel refused for the moment (retried)", null,
            RingwireCounters::sqRefusals),
        ZERO_COPY_SENDS("zero.copy.sends", "zero-copy sends", null, RingwireCounters::zeroCopySends),
        MIN_WAITS("min.waits", "sleeps with a minimum wait (ringwire.min-wait-micros)", null,
            RingwireCounters::minWaits),
        FD_INSTALLS("fd.installs", "file descriptors installed for a call on a direct descriptor, closed at once", null,
            RingwireCounters::fdInstalls),
        MSG_RING_TRANSFERS("msg.ring.transfers", "direct descriptors moved to another loop's table (MSG_RING)", null,
            RingwireCounters::msgRingTransfers);

        final String name;
        final String description;
        final String unit;
        final ToLongFunction<RingwireCounters> counter;

        Total(String name, String description, String unit, ToLongFunction<RingwireCounters> counter) {
            this.name = "ringwire.loop." + name;
            this.description = description;
            this.unit = unit;
            this.counter = counter;
        }

        double sum() {
            return RingwireMeterBinder.sum(counter);
        }
    }

    /** Levels: what the loops hold now, and the ratios of totals. */
    private enum Level {
        LOOPS("ringwire.loops", "Ringwire event loops running in this JVM", c -> 1),
        REGISTRATIONS("ringwire.loop.registrations", "channels registered with the loops",
            RingwireCounters::registrations),
        BUFFER_RING_BUFFERS("ringwire.loop.buffer.ring.buffers", "receive buffers the provided buffer rings have in use",
            RingwireCounters::bufferRingBuffers),
        FIXED_FILES("ringwire.loop.fixed.files", "connections in the loops' fixed-file tables",
            RingwireCounters::fixedFiles),
        DIRECT_DESCRIPTORS("ringwire.loop.direct.descriptors", "connections on direct descriptors, holding no fd",
            RingwireCounters::directDescriptors),
        SQES_PER_ENTER("ringwire.loop.sqes.per.enter", "submission queue entries per io_uring_enter (the batch)",
            RingwireCounters::sqes, RingwireCounters::enters),
        CQES_PER_ENTER("ringwire.loop.cqes.per.enter", "completion queue entries per io_uring_enter",
            RingwireCounters::cqes, RingwireCounters::enters),
        BYTES_PER_RECV("ringwire.loop.bytes.per.recv", "bytes per receive", RingwireCounters::recvBytes,
            RingwireCounters::recvs);

        final String name;
        final String description;
        final ToLongFunction<RingwireCounters> numerator;
        final ToLongFunction<RingwireCounters> denominator;

        Level(String name, String description, ToLongFunction<RingwireCounters> value) {
            this(name, description, value, null);
        }

        Level(String name, String description, ToLongFunction<RingwireCounters> numerator,
              ToLongFunction<RingwireCounters> denominator) {
            this.name = name;
            this.description = description;
            this.numerator = numerator;
            this.denominator = denominator;
        }

        double value() {
            double n = sum(numerator);
            if (denominator == null) {
                return n;
            }
            double d = sum(denominator);
            return d == 0 ? 0 : n / d;
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        // the enum constants are the meters' state objects: Micrometer holds those weakly, these live with the class
        for (Total t : Total.values()) {
            FunctionCounter.builder(t.name, t, Total::sum).description(t.description).baseUnit(t.unit)
                .register(registry);
        }
        for (Level l : Level.values()) {
            Gauge.builder(l.name, l, Level::value).description(l.description).register(registry);
        }
    }

    private static double sum(ToLongFunction<RingwireCounters> counter) {
        long sum = 0;
        for (RingwireCounters c : RingwireCounters.all()) {
            sum += counter.applyAsLong(c);
        }
        return sum;
    }
}
