package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelId;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultChannelId;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingwireChannelIdTest extends OneLoopTestBase {

    @Test
    void idsAreDistinctAndKeepNettysTextShapes() {
        Set<ChannelId> ids = new HashSet<>();
        Set<String> shortTexts = new HashSet<>();
        Set<String> longTexts = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            RingwireChannelId id = RingwireChannelId.next();
            ids.add(id);
            shortTexts.add(id.asShortText());
            longTexts.add(id.asLongText());
            assertTrue(id.asShortText().matches("[0-9a-f]{8}"), id.asShortText());
            assertTrue(id.asLongText().matches("[0-9a-f]{8}-[0-9a-f]{16}-[0-9a-f]{16}"), id.asLongText());
            assertEquals(id.asShortText(), id.toString());
        }
        assertEquals(10_000, ids.size());
        assertEquals(10_000, shortTexts.size());
        assertEquals(10_000, longTexts.size());
    }

    @Test
    void equalsHashCodeAndOrderAgree() throws Exception {
        RingwireChannelId a = RingwireChannelId.next();
        RingwireChannelId b = RingwireChannelId.next();
        assertNotEquals(a, b);
        assertTrue(a.compareTo(b) < 0);
        assertTrue(b.compareTo(a) > 0);
        assertEquals(0, a.compareTo(a));

        RingwireChannelId copy = roundTrip(a);
        assertEquals(a, copy);
        assertEquals(a.hashCode(), copy.hashCode());
        assertEquals(0, copy.compareTo(a));
        assertEquals(a.asLongText(), copy.asLongText());

        // against Netty's own ids (a ChannelGroup may hold channels of several transports): by the long texts
        ChannelId netty = DefaultChannelId.newInstance();
        assertNotEquals(a, netty);
        assertEquals(-Integer.signum(netty.compareTo(a)), Integer.signum(a.compareTo(netty)));
    }

    @Test
    void everyRingwireChannelGetsOne() throws Exception {
        CompletableFuture<ChannelId> accepted = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel().id());
                    ctx.close();
                }
            })
            .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try (Socket s = new Socket()) {
            s.connect(server.localAddress());
            ChannelId child = accepted.get(30, TimeUnit.SECONDS);
            assertInstanceOf(RingwireChannelId.class, child);
            assertInstanceOf(RingwireChannelId.class, server.id());
            assertNotEquals(child, server.id());
        } finally {
            server.close().sync();
        }
    }

    private static RingwireChannelId roundTrip(RingwireChannelId id) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(id);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (RingwireChannelId) in.readObject();
        }
    }
}
