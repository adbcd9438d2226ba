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

    @Test
    void sourceSpecificMembershipAndBlocking() throws Exception {
        try (TestNamespace ns = TestNamespace.create("mcast-ssm",
            List.of(List.of("ip", "link", "set", "lo", "multicast", "on")))) {
            ns.runInside(() -> {
                sourceScenario(InternetProtocolFamily.IPv4, "lo", "lo", "239.255.42.2", "127.0.0.1", "127.0.0.2",
                    "127.0.0.1", "::1");
                return null;
            });
        }
    }

    /**
     * IPv6 multicast does not loop back on lo, so here the namespace gets a veth pair: the senders on one end
     * (fd00::1 and fd00::3), the receiver on the other (fd00::2); both ends inside the namespace.
     */
    @Test
    void sourceSpecificMembershipAndBlockingIpv6() throws Exception {
        try (TestNamespace ns = TestNamespace.create("mcast-ssm6", List.of(
            List.of("ip", "link", "add", "rwa", "type", "veth", "peer", "name", "rwb"),
            List.of("ip", "link", "set", "rwa", "up"), List.of("ip", "link", "set", "rwb", "up"),
            List.of("ip", "-6", "addr", "add", "fd00::1/64", "dev", "rwa", "nodad"),
            List.of("ip", "-6", "addr", "add", "fd00::3/64", "dev", "rwa", "nodad"),
            List.of("ip", "-6", "addr", "add", "fd00::2/64", "dev", "rwb", "nodad"),
            // the JDK lists an interface on a thread inside a namespace only by its IPv4 addresses
            List.of("ip", "addr", "add", "10.255.0.1/24", "dev", "rwa"),
            List.of("ip", "addr", "add", "10.255.0.2/24", "dev", "rwb")))) {
            ns.runInside(() -> {
                sourceScenario(InternetProtocolFamily.IPv6, "rwb", "rwa", "ff32::8000:4242", "fd00::1", "fd00::3",
                    "fd00::2", "127.0.0.1");
                return null;
            });
        }
    }

    /**
     * Two senders, {@code one} and {@code two}, sending out of {@code sendIf}; the receiver, on {@code receiveIf},
     * takes one of them, then blocks one.
     *
     * @param receiverAddress the receiver's unicast address, for the datagrams that show nothing else is on its way
     * @param otherFamily     a source of the other family, refused
     */
    private static void sourceScenario(InternetProtocolFamily family, String receiveIf, String sendIf,
                                       String groupName, String oneName, String twoName, String receiverAddress,
                                       String otherFamily) throws Exception {
        NetworkInterface in = NetworkInterface.getByName(receiveIf);
        NetworkInterface out = NetworkInterface.getByName(sendIf);
        assertTrue(in != null && out != null,
            receiveIf + " and " + sendIf + " as the JDK sees them: " + in + ", " + out);
        InetAddress group = InetAddress.getByName(groupName);
        InetAddress one = InetAddress.getByName(oneName);
        InetAddress two = InetAddress.getByName(twoName);
        String fromOneText = " from " + one.getHostAddress();
        String fromTwoText = " from " + two.getHostAddress();
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        DatagramChannel receiver = (DatagramChannel) new Bootstrap().group(OneLoopTestBase.group)
            .channelFactory(() -> new RingwireDatagramChannel(family))
            .option(ChannelOption.SO_REUSEADDR, true)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    received.add(p.content().toString(StandardCharsets.US_ASCII) + " from "
                        + p.sender().getAddress().getHostAddress());
                }
            }).bind(new InetSocketAddress(0)).sync().channel();
        Channel fromOne = sender(family, out, one);
        Channel fromTwo = sender(family, out, two);
        try {
            int port = receiver.localAddress().getPort();
            InetSocketAddress groupAddress = new InetSocketAddress(group, port);
            InetSocketAddress direct = new InetSocketAddress(InetAddress.getByName(receiverAddress), port);

            // source-specific: only one's datagrams to the group; two's, sent first, never arrive
            receiver.joinGroup(group, in, one).sync();
            onlyOneIsHeard(new Channel[] {fromOne, fromTwo}, new String[] {fromOneText, fromTwoText}, groupAddress,
                direct, received);

            // left: nothing from the group at all
            receiver.leaveGroup(group, in, one).sync();
            send(fromOne, "a again", groupAddress);
            send(fromOne, "direct", direct);
            assertEquals("direct" + fromOneText, received.poll(10, TimeUnit.SECONDS),
                "after leaving, no group datagram");
            Throwable notJoined = receiver.leaveGroup(group, in, one).await().cause();
            assertTrue(notJoined != null && notJoined.getMessage().contains("EINVAL") // the kernel's word for it
                && notJoined.getMessage().contains("MCAST_LEAVE_SOURCE_GROUP"), String.valueOf(notJoined));

            // blocking a source needs a membership for any source first, and says so
            Throwable noMembership = receiver.block(group, in, two).await().cause();
            assertTrue(noMembership != null && noMembership.getMessage().contains("EINVAL")
                && noMembership.getMessage().contains("joined for any source"), String.valueOf(noMembership));

            // any source, then two blocked: one's still arrive
            receiver.joinGroup(groupAddress, in).sync();
            receiver.block(group, in, two).sync();
            onlyOneIsHeard(new Channel[] {fromOne, fromTwo}, new String[] {fromOneText, fromTwoText}, groupAddress,
                direct, received);

            Throwable mixed = receiver.joinGroup(group, in, InetAddress.getByName(otherFamily)).await().cause();
            assertTrue(mixed instanceof IllegalArgumentException && mixed.getMessage().contains("family"),
                String.valueOf(mixed));
            assertEquals(null, received.poll(200, TimeUnit.MILLISECONDS), "nothing else arrived");
        } finally {
            receiver.close().sync();
            fromOne.close().sync();
            fromTwo.close().sync();
        }
    }

    /**
     * Sends a group datagram from the second sender, then one from the first: only the first's arrives, and once a
     * direct datagram the second sends after both has arrived too, the second's group datagram cannot be on its way.
     *
     * @param senders the source the receiver hears, then the one it does not
     * @param texts   " from " and each one's address, as the receiver's handler writes it
     */
    private static void onlyOneIsHeard(Channel[] senders, String[] texts, InetSocketAddress groupAddress,
                                       InetSocketAddress direct, BlockingQueue<String> received) throws Exception {
        send(senders[1], "b", groupAddress);
        send(senders[0], "a", groupAddress);
        assertEquals("a" + texts[0], received.poll(10, TimeUnit.SECONDS), "the heard source's datagram");
        send(senders[1], "direct", direct);
        assertEquals("direct" + texts[1], received.poll(10, TimeUnit.SECONDS),
            "the other source's group datagram was filtered out");
    }

    private static Channel sender(InternetProtocolFamily family, NetworkInterface out, InetAddress address)
        throws InterruptedException {
        return new Bootstrap().group(OneLoopTestBase.group)
            .channelFactory(() -> new RingwireDatagramChannel(family))
            .option(ChannelOption.IP_MULTICAST_IF, out)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                }
            }).bind(new InetSocketAddress(address, 0)).sync().channel();
    }

    private static void send(Channel from, String text, InetSocketAddress to) throws InterruptedException {
        from.writeAndFlush(new DatagramPacket(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII), to)).sync();
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
        } finally {
            receiver.close().sync();
            sender.close().sync();
        }
    }
}
