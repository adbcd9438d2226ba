package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multicast join and leave, in a network namespace the test creates (its only interface is its own loopback, made
 * multicast-capable there), so no datagram can leave the machine: the sockets are opened by a thread that entered the
 * namespace (setns). Netty's DatagramMulticastTest is not run: it picks the host's first multicast interface (eth0)
 * and sends group datagrams out of it. Needs root and iproute2, else skipped saying which.
 */
class MulticastTest extends OneLoopTestBase {
    @Test
    void joinReceivesLeaveStops() throws Exception {
        try (TestNamespace ns = TestNamespace.create("mcast",
            List.of(List.of("ip", "link", "set", "lo", "multicast", "on")))) {
            ns.runInside(() -> {
                scenario();
                return null;
            });
        }
    }

    private static void scenario() throws Exception {
        NetworkInterface lo = NetworkInterface.getByName("lo");
        InetAddress group = InetAddress.getByName("239.255.42.1");
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        DatagramChannel receiver = (DatagramChannel) new Bootstrap().group(OneLoopTestBase.group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(ChannelOption.SO_REUSEADDR, true)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    received.add(p.content().toString(StandardCharsets.US_ASCII));
                }
            }).bind(new InetSocketAddress(0)).sync().channel();
        Channel sender = new Bootstrap().group(OneLoopTestBase.group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(ChannelOption.IP_MULTICAST_IF, lo)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try {
            int port = receiver.localAddress().getPort();
            InetSocketAddress groupAddress = new InetSocketAddress(group, port);
            assertEquals(lo, ((DatagramChannel) sender).config().getNetworkInterface());

            receiver.joinGroup(groupAddress, lo).sync();
            sender.writeAndFlush(new DatagramPacket(Unpooled.copiedBuffer("to the group", StandardCharsets.US_ASCII),
                groupAddress)).sync();
            assertEquals("to the group", received.poll(10, TimeUnit.SECONDS), "a member receives the group's datagram");

            receiver.leaveGroup(groupAddress, lo).sync();
            sender.writeAndFlush(new DatagramPacket(Unpooled.copiedBuffer("after leaving", StandardCharsets.US_ASCII),
                groupAddress)).sync();
            // a unicast datagram sent after it, on the same loopback: once it is here, the group's would have been
            sender.writeAndFlush(new DatagramPacket(Unpooled.copiedBuffer("direct", StandardCharsets.US_ASCII),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port))).sync();
            assertEquals("direct", received.poll(10, TimeUnit.SECONDS), "after leaving, only the direct datagram");

            Throwable ssm = receiver.joinGroup(group, lo, InetAddress.getLoopbackAddress()).await().cause();
            assertTrue(ssm instanceof UnsupportedOperationException, String.valueOf(ssm));
        } finally {
            receiver.close().sync();
            sender.close().sync();
        }
    }
}
