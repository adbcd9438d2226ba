package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bind(port)}, the wildcard as the JDK gives it ({@code new InetSocketAddress(port)}: 0.0.0.0), on Ringwire's
 * default channels (dual-stack sockets where the host has IPv6) takes both families, as on Netty's native transports
 * and the JDK's: it is bound as {@code ::}, not as {@code ::ffff:0.0.0.0}, which would be IPv4 only. Loopback peers
 * only (127.0.0.1 and ::1); skipped where the host has no ::1.
 */
class WildcardBindTest extends OneLoopTestBase {
    private static final InetAddress V6 = loopback6();
    private static final InetAddress V4 = InetAddress.getLoopbackAddress();

    private static InetAddress loopback6() {
        try (Socket probe = new Socket()) {
            InetAddress a = InetAddress.getByName("::1");
            probe.bind(new InetSocketAddress(a, 0));
            return a;
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void aTcpServerBoundToThePortAloneAcceptsBothFamilies() throws Exception {
        Assumptions.assumeTrue(V6 != null, "the host has no ::1");
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ReplyOk()).bind(new InetSocketAddress(0)).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            assertTrue(((InetSocketAddress) server.localAddress()).getAddress().isAnyLocalAddress(),
                String.valueOf(server.localAddress()));
            for (InetAddress peer : new InetAddress[] {V4, V6}) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(peer, port), 10_000);
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write('x');
                    InputStream in = s.getInputStream();
                    assertEquals("ok", new String(in.readNBytes(2), StandardCharsets.US_ASCII),
                        "a client from " + peer.getHostAddress());
                }
            }
        } finally {
            server.close().sync();
        }
    }

    @ChannelHandler.Sharable
    private static final class ReplyOk extends SimpleChannelInboundHandler<Object> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aDatagramChannelBoundToThePortAloneReceivesBothFamilies() throws Exception {
        Assumptions.assumeTrue(V6 != null, "the host has no ::1");
        BlockingQueue<InetAddress> senders = new LinkedBlockingQueue<>();
        Channel ch = new Bootstrap().group(group).channel(RingwireDatagramChannel.class)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    senders.add(p.sender().getAddress());
                }
            }).bind(new InetSocketAddress(0)).sync().channel();
        try {
            int port = ((InetSocketAddress) ch.localAddress()).getPort();
            for (InetAddress peer : new InetAddress[] {V4, V6}) {
                try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(peer, 0))) {
                    byte[] b = "hello".getBytes(StandardCharsets.US_ASCII);
                    s.send(new java.net.DatagramPacket(b, b.length, new InetSocketAddress(peer, port)));
                }
                assertEquals(peer, senders.poll(10, TimeUnit.SECONDS), "a datagram from " + peer.getHostAddress());
            }
        } finally {
            ch.close().sync();
        }
    }
}
