package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketProtocolFamily;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The datagram channel's defaults and addresses as Netty's EpollDatagramChannelTest expects them: 16 messages per
 * read; no local or remote address and not active before bind, for each constructor; no local address yet when
 * registered, a bound port after bind.
 */
class DatagramAddressesTest extends OneLoopTestBase {
    @Test
    void beforeBindThereIsNoAddress() throws Exception {
        for (RingwireDatagramChannel ch : new RingwireDatagramChannel[] {new RingwireDatagramChannel(),
            new RingwireDatagramChannel(SocketProtocolFamily.INET),
            new RingwireDatagramChannel(SocketProtocolFamily.INET6)}) {
            group.register(ch).sync();
            try {
                assertEquals(16, ch.config().getMaxMessagesPerRead());
                assertFalse(ch.isActive());
                assertNull(ch.localAddress());
                assertNull(ch.remoteAddress());
            } finally {
                ch.close().sync();
            }
        }
    }

    @Test
    void theLocalAddressComesWithTheBind() throws Exception {
        AtomicReference<SocketAddress> whenRegistered = new AtomicReference<>(new InetSocketAddress(0));
        Channel ch = new Bootstrap().group(group).channel(RingwireDatagramChannel.class)
            .localAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRegistered(ChannelHandlerContext ctx) {
                    whenRegistered.set(ctx.channel().localAddress());
                    ctx.fireChannelRegistered();
                }
            }).bind().sync().channel();
        try {
            assertNull(whenRegistered.get(), "not bound yet when registered");
            assertTrue(ch.localAddress() instanceof InetSocketAddress);
            assertNotEquals(0, ((InetSocketAddress) ch.localAddress()).getPort());
        } finally {
            ch.close().sync();
        }
    }
}
