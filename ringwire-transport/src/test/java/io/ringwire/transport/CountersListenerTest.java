package io.ringwire.transport;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RingwireCounters.Listener}s hear of each loop once as it starts (or at once, for a loop already running)
 * and once as it ends; a listener that throws leaves the loop running; a removed listener hears nothing more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountersListenerTest {
    /** What a listener heard, of the loops whose thread names start with {@code prefix} (others may run meanwhile). */
    private static final class Heard implements RingwireCounters.Listener {
        final String prefix;
        final List<RingwireCounters> started = new CopyOnWriteArrayList<>();
        final List<RingwireCounters> ended = new CopyOnWriteArrayList<>();

        Heard(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public void loopStarted(RingwireCounters counters) {
            if (counters.name().startsWith(prefix)) {
                started.add(counters);
            }
        }

        @Override
        public void loopEnded(RingwireCounters counters) {
            if (counters.name().startsWith(prefix)) {
                ended.add(counters);
            }
        }
    }

    @Test
    void aListenerHearsOfEachLoopAsItStartsAndEnds() throws Exception {
        Heard heard = new Heard("listened-");
        RingwireCounters.addListener(heard);
        try {
            MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                new DefaultThreadFactory("listened"), RingwireIoHandler.newFactory());
            for (var loop : group) {
                loop.submit(() -> { }).sync(); // the loop starts with its first task
            }
            assertEquals(2, heard.started.size(), heard.started.toString());
            for (var loop : group) {
                assertTrue(heard.started.contains(RingwireCounters.of(loop)));
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            assertEquals(2, heard.ended.size(), heard.ended.toString());
            assertTrue(heard.ended.containsAll(heard.started));
        } finally {
            RingwireCounters.removeListener(heard);
        }
    }

    @Test
    void aListenerAddedLaterHearsOfTheRunningLoopsAtOnceAndARemovedOneOfNothing() throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("running"), RingwireIoHandler.newFactory());
        Heard heard = new Heard("running-");
        try {
            group.next().submit(() -> { }).sync();
            RingwireCounters.addListener(heard);
            assertEquals(1, heard.started.size(), heard.started.toString());
            assertSame(RingwireCounters.of(group.next()), heard.started.get(0));
            RingwireCounters.removeListener(heard);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        assertEquals(List.of(), heard.ended, "removed before the loop ended");
    }

    @Test
    void aListenerThatThrowsLeavesTheLoopRunning() throws Exception {
        RingwireCounters.Listener failing = new RingwireCounters.Listener() {
            @Override
            public void loopStarted(RingwireCounters counters) {
                throw new IllegalStateException("a listener's failure");
            }

            @Override
            public void loopEnded(RingwireCounters counters) {
                throw new IllegalStateException("a listener's failure");
            }
        };
        Heard heard = new Heard("throwing-");
        RingwireCounters.addListener(failing);
        RingwireCounters.addListener(heard);
        try {
            MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("throwing"), RingwireIoHandler.newFactory());
            assertEquals("ran", group.next().submit(() -> "ran").get(10, TimeUnit.SECONDS));
            assertEquals(1, heard.started.size(), "the next listener heard of it too");
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            assertEquals(1, heard.ended.size());
        } finally {
            RingwireCounters.removeListener(failing);
            RingwireCounters.removeListener(heard);
        }
    }
}
