package io.ringwire.lettuce;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.ringwire.transport.RingwireCounters;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A Netty customizer of the user's (Lettuce calls it for each channel it opens) that records Lettuce's channels. */
final class ChannelRecorder implements NettyCustomizer {
    final List<Channel> channels = new CopyOnWriteArrayList<>();

    @Override
    public void afterChannelInitialized(Channel channel) {
        channels.add(channel);
    }

    /** @return client resources on Ringwire with two loops, recording the channels into this recorder */
    ClientResources resources() {
        return RingwireLettuce.customize(ClientResources.builder(), 2).nettyCustomizer(this).build();
    }

    /** Asserts that Lettuce opened channels, each of {@code type} on a Ringwire loop; returns the bytes they wrote. */
    long assertAllOnRingwire(Class<? extends Channel> type) {
        assertFalse(channels.isEmpty(), "Lettuce opened no channel");
        long written = 0;
        for (Channel channel : channels) {
            assertTrue(type.isInstance(channel), "a channel on " + channel.getClass().getName());
            RingwireCounters counters = RingwireCounters.of(channel.eventLoop());
            assertNotNull(counters, "the loop of " + channel + " is Ringwire's");
            written += counters.writeBytes();
        }
        return written;
    }
}
