package io.ringwire.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The binder against live Ringwire loops on loopback, with Micrometer's {@link SimpleMeterRegistry}: each loop gets
 * a meter for every counter of {@link RingwireCounters}, tagged with its own thread name; the meters read what the
 * loops counted and grow with traffic; a loop's meters go when it ends, and every meter when the binder closes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingwireMeterBinderTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RingwireMeterBinder binder = new RingwireMeterBinder();
    private MultiThreadIoEventLoopGroup group;

    @BeforeAll
    static void ringwireRunsHere() {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
    }

    @AfterEach
    void close() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        binder.close();
        registry.close();
    }

    @Test
    void everyLoopGetsAMeterPerCounterTaggedWithItsThreadNameAndTheyGrowWithTraffic() throws Exception {
        binder.bindTo(registry); // before the loops start: they get their meters as they start
        group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("metered"), RingwireIoHandler.newFactory());
        Channel server = echoServer();
        try {
            echo(server, 1000);
            List<EventExecutor> loops = new ArrayList<>();
            group.forEach(loops::add);
            Set<String> tags = new TreeSet<>();
            for (EventExecutor loop : loops) {
                String name = loop.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
                tags.add(name);
                assertEquals(name, RingwireCounters.of(loop).name());
                // read on the loop's thread, which alone writes the counters: meter and counter see the same value
                loop.submit(() -> assertEveryCounterHasItsMeter(RingwireCounters.of(loop)))
                    .get(10, TimeUnit.SECONDS);
            }
            assertEquals(2, tags.size(), "the loops' tags differ: " + tags);
            assertEquals(tags, registry.find("ringwire.loop.enters").meters().stream()
                .map(m -> m.getId().getTag(RingwireMeterBinder.LOOP_TAG)).collect(Collectors.toCollection(TreeSet::new)));

            Map<String, Double> enters = perLoop("ringwire.loop.enters");
            double received = total("ringwire.loop.recv.bytes");
            double written = awaitTotal("ringwire.loop.write.bytes", 1000);
            assertTrue(received >= 1000 && written >= 1000, received + " B received, " + written + " B written");
            assertEquals(1, total("ringwire.loop.accepts"));
            enters.values().forEach(e -> assertTrue(e > 0, "every loop entered: " + enters));
            assertEquals(2, gauge("ringwire.loops"));
            assertTrue(gauge("ringwire.loop.sqes.per.enter") > 0);
            assertTrue(gauge("ringwire.loop.bytes.per.recv") > 0);

            echo(server, 5000);
            assertTrue(total("ringwire.loop.recv.bytes") >= received + 5000);
            assertTrue(awaitTotal("ringwire.loop.write.bytes", written + 5000) >= written + 5000);
            assertEquals(2, total("ringwire.loop.accepts"));
            assertTrue(total("ringwire.loop.enters") > enters.values().stream().mapToDouble(Double::doubleValue).sum());
            // Netty hands the accepted channels to the loops in turn: each loop received one connection's bytes
            Map<String, Double> received2 = perLoop("ringwire.loop.recv.bytes");
            assertEquals(tags, received2.keySet());
            received2.values().forEach(r -> assertTrue(r > 0, "every loop received: " + received2));
        } finally {
            server.close().sync();
        }

        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        group = null;
        assertEquals(Set.of(), loopTags(), "a loop that ends takes its meters with it");
        assertEquals(0, gauge("ringwire.loops"));
    }

    @Test
    void loopsRunningBeforeBindingGetTheirMetersAtOnceAndCloseRemovesThemAll() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("early"), RingwireIoHandler.newFactory());
        Channel server = echoServer();
        try {
            echo(server, 100);
            binder.bindTo(registry);
            String name = group.next().submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
            assertTrue(loopTags().contains(name), loopTags().toString());
            assertTrue(total("ringwire.loop.recv.bytes") >= 100);
        } finally {
            server.close().sync();
        }
        binder.close();
        assertEquals(List.of(), registry.getMeters().stream().map(m -> m.getId().getName())
            .filter(n -> n.startsWith("ringwire.")).toList());
    }

    @Test
    void theBindersOwnTagsAreOnEveryMeter() throws Exception {
        try (RingwireMeterBinder tagged = new RingwireMeterBinder(Tags.of("application", "shop"))) {
            group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tagged"),
                RingwireIoHandler.newFactory());
            Channel server = echoServer();
            try {
                echo(server, 10);
                tagged.bindTo(registry);
                List<Meter> ours = registry.getMeters().stream()
                    .filter(m -> m.getId().getName().startsWith("ringwire.")).toList();
                assertTrue(ours.size() > 4, ours.toString());
                ours.forEach(m -> assertEquals("shop", m.getId().getTag("application"), m.getId().toString()));
            } finally {
                server.close().sync();
            }
        }
    }

    /**
     * Each public {@code long} or {@code int} counter of {@code c} has a meter {@code ringwire.loop.<its name, dotted>}
     * tagged with the loop, a counter for a {@code long} total and a gauge for an {@code int} level, reading its value.
     */
    private void assertEveryCounterHasItsMeter(RingwireCounters c) {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Method m : RingwireCounters.class.getMethods()) {
            if (m.getDeclaringClass() != RingwireCounters.class || Modifier.isStatic(m.getModifiers())
                || m.getParameterCount() > 0
                || (m.getReturnType() != long.class && m.getReturnType() != int.class)) {
                continue;
            }
            checked++;
            String name = "ringwire.loop." + m.getName().replaceAll("([A-Z])", ".$1").toLowerCase(java.util.Locale.ROOT);
            Meter meter = registry.find(name).tag(RingwireMeterBinder.LOOP_TAG, c.name()).meter();
            if (meter == null) {
                problems.add(m.getName() + ": no meter " + name + " tagged loop=" + c.name());
                continue;
            }
            double value;
            long expected;
            try {
                expected = ((Number) m.invoke(c)).longValue();
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            if (m.getReturnType() == long.class) {
                if (!(meter instanceof FunctionCounter fc)) {
                    problems.add(name + " is a " + meter.getId().getType() + ", not a counter");
                    continue;
                }
                value = fc.count();
            } else {
                if (!(meter instanceof Gauge g)) {
                    problems.add(name + " is a " + meter.getId().getType() + ", not a gauge");
                    continue;
                }
                value = g.value();
            }
            if (value != expected) {
                problems.add(name + " reads " + value + ", the counter says " + expected);
            }
        }
        assertTrue(checked >= 38, "the scan finds the counters: " + checked);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    private Set<String> loopTags() {
        return registry.getMeters().stream().map(m -> m.getId().getTag(RingwireMeterBinder.LOOP_TAG))
            .filter(t -> t != null).collect(Collectors.toCollection(TreeSet::new));
    }

    private Map<String, Double> perLoop(String name) {
        Map<String, Double> values = new HashMap<>();
        for (FunctionCounter c : registry.find(name).functionCounters()) {
            values.put(c.getId().getTag(RingwireMeterBinder.LOOP_TAG), c.count());
        }
        return values;
    }

    private double total(String name) {
        return registry.find(name).functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
    }

    /**
     * {@link #total} once it reaches {@code atLeast}, or after 30 s. A loop counts a write when it reaps the write's
     * completion, which can come after the peer has read the bytes: the echo returning does not mean it is counted.
     */
    private double awaitTotal(String name, double atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        double t;
        while ((t = total(name)) < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return t;
    }

    private double gauge(String name) {
        Gauge g = registry.find(name).gauge();
        assertNotNull(g, name);
        return g.value();
    }

    private Channel echoServer() throws InterruptedException {
        return new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new Echo()).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .sync().channel();
    }

    /** {@code size} bytes through the echo server, from a JDK socket, and back whole. */
    private static void echo(Channel server, int size) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            byte[] sent = new byte[size];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) i;
            }
            s.getOutputStream().write(sent);
            byte[] back = new byte[size];
            new DataInputStream(s.getInputStream()).readFully(back);
            assertArrayEquals(sent, back);
        }
    }

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }
}
