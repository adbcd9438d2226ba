package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.SegmentedDatagramPacket;
import org.junit.jupiter.api.Test;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IP_RECVORIGDSTADDR: a datagram channel bound to the wildcard tells, in each packet's {@code recipient()}, which of
 * the host's addresses the datagram was sent to (loopback: 127.0.0.1 and 127.0.0.2, and ::1 on a dual-stack socket
 * where the host has it); without the option the recipient is the channel's local address, as on Netty's epoll
 * transport. With UDP_GRO as well, each datagram of a coalesced batch carries it.
 */
class OriginalDestinationTest extends OneLoopTestBase {
    private static final InetAddress ONE = InetAddress.getLoopbackAddress();

    @Test
    void eachPacketSaysWhereItWasSent() throws Exception {
        assertSame(RingwireChannelOption.IP_RECVORIGDSTADDR, EpollChannelOption.IP_RECVORIGDSTADDR, "one constant");
        BlockingQueue<DatagramPacket> got = new LinkedBlockingQueue<>();
        Channel ch = receiver(got, false);
        try {
            int port = ((InetSocketAddress) ch.localAddress()).getPort();
            InetAddress two = InetAddress.getByName("127.0.0.2");
            assertEquals(new InetSocketAddress(ONE, port), sendAndReceive(ONE, port, got).recipient());
            assertEquals(new InetSocketAddress(two, port), sendAndReceive(two, port, got).recipient());
            InetAddress v6 = v6Loopback();
            if (v6 != null) {
                assertEquals(new InetSocketAddress(v6, port), sendAndReceive(v6, port, got).recipient());
            }

            ch.config().setOption(RingwireChannelOption.IP_RECVORIGDSTADDR, false);
            assertEquals(ch.localAddress(), sendAndReceive(two, port, got).recipient(),
                "without it: the channel's own (wildcard) address");
            assertEquals(Boolean.FALSE, ch.config().getOption(RingwireChannelOption.IP_RECVORIGDSTADDR));
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void everyDatagramOfAGroBatchCarriesIt() throws Exception {
        BlockingQueue<DatagramPacket> got = new LinkedBlockingQueue<>();
        Channel ch = receiver(got, true);
        InetAddress two = InetAddress.getByName("127.0.0.2");
        Channel sender = new Bootstrap().group(group).channel(RingwireDatagramChannel.class)
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                }
            }).bind(new InetSocketAddress(ONE, 0)).sync().channel();
        try {
            int port = ((InetSocketAddress) ch.localAddress()).getPort();
            ByteBuf four = Unpooled.directBuffer(4 * 100);
            for (int i = 0; i < 4; i++) {
                String text = ("segment " + i + " ").repeat(10).substring(0, 100);
                four.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
            }
            RingwireCounters c = RingwireCounters.of(ch.eventLoop());
            long batches = ch.eventLoop().submit(c::groBatches).get();
            sender.writeAndFlush(new SegmentedDatagramPacket(four, 100, new InetSocketAddress(two, port))).sync();
            for (int i = 0; i < 4; i++) {
                DatagramPacket p = got.poll(10, TimeUnit.SECONDS);
                assertTrue(p != null, "datagram " + i);
                assertEquals(new InetSocketAddress(two, port), p.recipient(), "datagram " + i);
                assertTrue(p.content().toString(StandardCharsets.US_ASCII).startsWith("segment " + i), "in order");
                p.release();
            }
            assertEquals(1, ch.eventLoop().submit(c::groBatches).get() - batches, "the four came as one batch");
        } finally {
            ch.close().sync();
            sender.close().sync();
        }
    }

    private static Channel receiver(BlockingQueue<DatagramPacket> got, boolean gro) throws InterruptedException {
        return new Bootstrap().group(group).channel(RingwireDatagramChannel.class)
            .option(EpollChannelOption.IP_RECVORIGDSTADDR, true)
            .option(RingwireChannelOption.UDP_GRO, gro)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(gro ? 65536 : 2048))
            .handler(new SimpleChannelInboundHandler<DatagramPacket>(false) {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    got.add(p);
                }
            }).bind(new InetSocketAddress(0)).sync().channel();
    }

    private static DatagramPacket sendAndReceive(InetAddress to, int port, BlockingQueue<DatagramPacket> got)
        throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(to, 0))) {
            byte[] b = "where to".getBytes(StandardCharsets.US_ASCII);
            s.send(new java.net.DatagramPacket(b, b.length, new InetSocketAddress(to, port)));
        }
        DatagramPacket p = got.poll(10, TimeUnit.SECONDS);
        assertTrue(p != null, "a datagram sent to " + to.getHostAddress());
        assertEquals("where to", p.content().toString(StandardCharsets.US_ASCII));
        p.release();
        return p;
    }

    private static InetAddress v6Loopback() {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("::1"), 0))) {
            return InetAddress.getByName("::1");
        } catch (Exception e) {
            return null;
        }
    }
}
