package io.ringwire.micronaut;

import io.micronaut.http.netty.channel.NettyChannelType;
import io.netty.channel.Channel;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every channel type Micronaut asks a transport for is Ringwire's, as a class and as an instance. */
class RingwireEventLoopGroupFactoryTest {
    private final RingwireEventLoopGroupFactory factory = new RingwireEventLoopGroupFactory();

    @Test
    void mapsEveryMicronautChannelTypeToRingwires() {
        Map<NettyChannelType, Class<? extends Channel>> expected = Map.of(
            NettyChannelType.SERVER_SOCKET, RingwireServerSocketChannel.class,
            NettyChannelType.CLIENT_SOCKET, RingwireSocketChannel.class,
            NettyChannelType.DOMAIN_SOCKET, RingwireDomainSocketChannel.class,
            NettyChannelType.DOMAIN_SERVER_SOCKET, RingwireServerDomainSocketChannel.class,
            NettyChannelType.DATAGRAM_SOCKET, RingwireDatagramChannel.class);
        assertEquals(NettyChannelType.values().length, expected.size(), "every type Micronaut has");
        expected.forEach((type, c) -> {
            assertEquals(c, factory.channelClass(type), type::name);
            assertEquals(c, factory.channelClass(type, null), type::name);
            Channel channel = factory.channelInstance(type, null);
            try {
                assertEquals(c, channel.getClass(), type::name);
            } finally {
                channel.unsafe().closeForcibly(); // never registered: its socket closes here
            }
        });
        assertTrue(factory.isNative());
    }
}
