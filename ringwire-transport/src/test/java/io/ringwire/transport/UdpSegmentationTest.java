package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.channel.uring.IoUringChannelOption;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UDP segmentation offload both ways, as QUIC stacks use it: a {@link SegmentedDatagramPacket} leaves as several
 * datagrams cut by the kernel (GSO, one SENDMSG with a UDP_SEGMENT control message), and with
 * {@link RingwireChannelOption#UDP_GRO} a receive that brings several datagrams at once (GRO) reaches the pipeline as
 * one packet per datagram. On loopback the kernel hands a GSO send to a GRO receiver whole, so the two meet here.
 */
class UdpSegmentationTest extends OneLoopTestBase {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Ten whole segments of 1,000 bytes and a shorter last one. */
    private static final int SEGMENT = 1_000;
    private static final int LENGTH = 10 * SEGMENT + 500;

    /** @return what a receiver got: each datagram's bytes and its sender, or an exception it caught */
    private record Received(BlockingQueue<byte[]> datagrams, BlockingQueue<InetSocketAddress> senders,
                            BlockingQueue<Throwable> errors) {
        Received() {
            this(new LinkedBlockingQueue<>(), new LinkedBlockingQueue<>(), new LinkedBlockingQueue<>());
        }
    }

    private static Channel receiver(Received into, boolean gro, int recvSize) throws InterruptedException {
        Bootstrap b = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(RingwireChannelOption.UDP_GRO, gro)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(recvSize))
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    into.senders().add(p.sender()); // first: the test takes the datagram, then its sender
                    into.datagrams().add(ByteBufUtil.getBytes(p.content()));
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    into.errors().add(cause);
                }
            });
        return b.bind(new InetSocketAddress(LOOPBACK, 0)).sync().channel();
    }

    private static Channel sender() throws InterruptedException {
        return new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new InetSocketAddress(LOOPBACK, 0)).sync().channel();
    }

    private static long counter(Channel ch, java.util.function.ToLongFunction<RingwireCounters> which)
        throws Exception {
        RingwireCounters c = RingwireCounters.of(ch.eventLoop());
        return ch.eventLoop().submit(() -> which.applyAsLong(c)).get();
    }

    /** @return the segments {@code whole} is cut into, in order */
    private static List<byte[]> segments(byte[] whole) {
        List<byte[]> out = new ArrayList<>();
        for (int at = 0; at < whole.length; at += SEGMENT) {
            out.add(java.util.Arrays.copyOfRange(whole, at, Math.min(whole.length, at + SEGMENT)));
        }
        return out;
    }

    @Test
    void aSegmentedPacketLeavesAsOneDatagramPerSegment() throws Exception {
        Channel out = sender();
        try (java.nio.channels.DatagramChannel peer = java.nio.channels.DatagramChannel.open()) {
            peer.bind(new InetSocketAddress(LOOPBACK, 0)); // a JDK socket: no GRO, so the kernel delivers each segment
            InetSocketAddress to = (InetSocketAddress) peer.getLocalAddress();
            long before = counter(out, RingwireCounters::segmentedSends);
            byte[] direct = DatagramChannelTest.pattern(LENGTH, 1);
            byte[] heap = DatagramChannelTest.pattern(LENGTH, 2);
            ByteBuf directContent = Unpooled.directBuffer(LENGTH).writeBytes(direct);
            out.writeAndFlush(new SegmentedDatagramPacket(directContent, SEGMENT, to)).sync();
            // a heap buffer is copied to direct memory on the way in: the copy keeps the segment size
            out.writeAndFlush(new SegmentedDatagramPacket(Unpooled.wrappedBuffer(heap), SEGMENT, to)).sync();
            // a composite whose components do not line up with the segments: several iovecs, cut by the kernel
            byte[] composite = DatagramChannelTest.pattern(LENGTH, 3);
            io.netty.buffer.CompositeByteBuf parts = Unpooled.compositeBuffer();
            for (int at = 0, size = 777; at < LENGTH; at += size) {
                int n = Math.min(size, LENGTH - at);
                parts.addComponent(true, Unpooled.directBuffer(n).writeBytes(composite, at, n));
            }
            out.writeAndFlush(new SegmentedDatagramPacket(parts, SEGMENT, to)).sync();
            assertEquals(3, counter(out, RingwireCounters::segmentedSends) - before);
            // a segment size the kernel's 16 bits cannot hold fails the write, and nothing is sent
            Throwable tooLarge = out.writeAndFlush(new SegmentedDatagramPacket(Unpooled.directBuffer(8).writeLong(1),
                70_000, to)).await().cause();
            assertInstanceOf(IllegalArgumentException.class, tooLarge);
            assertTrue(tooLarge.getMessage().contains("70000"), tooLarge.getMessage());
            ByteBuffer b = ByteBuffer.allocate(65_536);
            for (byte[] whole : List.of(direct, heap, composite)) {
                for (byte[] expected : segments(whole)) {
                    b.clear();
                    assertEquals(out.localAddress(), peer.receive(b));
                    b.flip();
                    byte[] got = new byte[b.remaining()];
                    b.get(got);
                    assertArrayEquals(expected, got, "each segment its own datagram, whole and in order");
                }
            }
        } finally {
            out.close().sync();
        }
    }

    @Test
    void withUdpGroABatchReachesThePipelineOnePacketPerDatagram() throws Exception {
        Received r = new Received();
        Channel in = receiver(r, true, 65_536);
        Channel out = sender();
        try {
            long batches = counter(in, RingwireCounters::groBatches);
            byte[] whole = DatagramChannelTest.pattern(LENGTH, 4);
            out.writeAndFlush(new SegmentedDatagramPacket(Unpooled.wrappedBuffer(whole), SEGMENT,
                (InetSocketAddress) in.localAddress())).sync();
            for (byte[] expected : segments(whole)) {
                assertArrayEquals(expected, r.datagrams().poll(10, TimeUnit.SECONDS), "one packet per datagram");
                assertEquals(out.localAddress(), r.senders().poll(10, TimeUnit.SECONDS));
            }
            // an ordinary datagram after it: one packet, as it came
            byte[] single = DatagramChannelTest.pattern(700, 5);
            out.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(single),
                (InetSocketAddress) in.localAddress())).sync();
            assertArrayEquals(single, r.datagrams().poll(10, TimeUnit.SECONDS));
            assertTrue(r.datagrams().isEmpty());
            assertTrue(r.errors().isEmpty(), String.valueOf(r.errors()));
            assertEquals(1, counter(in, RingwireCounters::groBatches) - batches,
                "the kernel handed the GSO send to the GRO receiver whole (loopback)");
            assertTrue(in.config().getOption(RingwireChannelOption.UDP_GRO));
        } finally {
            out.close().sync();
            in.close().sync();
        }
    }

    @Test
    void udpGroSetOnAReceivingChannelMovesItsReceivesOffTheRing() throws Exception {
        Received r = new Received();
        Channel in = receiver(r, false, 65_536);
        in.config().setOption(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, 1_500); // so the ring receives first
        Channel out = sender();
        try {
            InetSocketAddress to = (InetSocketAddress) in.localAddress();
            byte[] first = DatagramChannelTest.pattern(500, 7);
            out.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(first), to)).sync();
            assertArrayEquals(first, r.datagrams().poll(10, TimeUnit.SECONDS), "received from the ring");
            long direct = counter(in, RingwireCounters::directRecvs);
            in.config().setOption(RingwireChannelOption.UDP_GRO, true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (counter(in, RingwireCounters::directRecvs) == direct && System.nanoTime() < deadline) {
                Thread.sleep(5); // the ring's receive is cancelled, and one into the allocator's buffer armed
            }
            assertTrue(counter(in, RingwireCounters::directRecvs) > direct, "a receive of the allocator's armed");
            byte[] whole = DatagramChannelTest.pattern(LENGTH, 8);
            out.writeAndFlush(new SegmentedDatagramPacket(Unpooled.wrappedBuffer(whole), SEGMENT, to)).sync();
            for (byte[] expected : segments(whole)) {
                assertArrayEquals(expected, r.datagrams().poll(10, TimeUnit.SECONDS), "one packet per datagram");
            }
            assertTrue(r.errors().isEmpty(), String.valueOf(r.errors()));
        } finally {
            out.close().sync();
            in.close().sync();
        }
    }

    @Test
    void aGroBatchTooBigForTheAllocatorsBufferIsReportedAndTheChannelGoesOn() throws Exception {
        Received r = new Received();
        Channel in = receiver(r, true, 2_048); // Netty's default: smaller than the batch
        Channel out = sender();
        try {
            InetSocketAddress to = (InetSocketAddress) in.localAddress();
            out.writeAndFlush(new SegmentedDatagramPacket(Unpooled.wrappedBuffer(new byte[LENGTH]), SEGMENT, to))
                .sync();
            DatagramTruncatedException e = assertInstanceOf(DatagramTruncatedException.class,
                r.errors().poll(10, TimeUnit.SECONDS));
            assertEquals(LENGTH, e.length());
            assertTrue(r.datagrams().isEmpty(), "nothing of the cut batch was passed up");
            byte[] after = DatagramChannelTest.pattern(1_500, 6);
            out.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(after), to)).sync();
            assertArrayEquals(after, r.datagrams().poll(10, TimeUnit.SECONDS), "the next datagram comes whole");
        } finally {
            out.close().sync();
            in.close().sync();
        }
    }

    @Test
    void maxDatagramPayloadSizeKeepsALargeAllocatorsReceivesOnTheRing() throws Exception {
        for (int largest : new int[] {0, 1_500}) {
            Received r = new Received();
            Bootstrap b = new Bootstrap().group(group)
                .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                .option(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, largest)
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                        r.datagrams().add(ByteBufUtil.getBytes(p.content()));
                    }
                });
            Channel in = b.bind(new InetSocketAddress(LOOPBACK, 0)).sync().channel();
            Channel out = sender();
            try {
                long direct = counter(in, RingwireCounters::directRecvs);
                for (int i = 0; i < 5; i++) {
                    byte[] d = DatagramChannelTest.pattern(1_200, i);
                    out.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(d),
                        (InetSocketAddress) in.localAddress())).sync();
                    assertArrayEquals(d, r.datagrams().poll(10, TimeUnit.SECONDS));
                }
                long directNow = counter(in, RingwireCounters::directRecvs) - direct;
                if (largest == 0) {
                    assertTrue(directNow >= 5, "a 64 KiB allocator alone: receives straight into its buffers");
                } else {
                    assertEquals(0, directNow, "1,500-byte datagrams at most: the ring's buffers hold them");
                }
                assertEquals(largest, in.config().getOption(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE));
            } finally {
                out.close().sync();
                in.close().sync();
            }
        }
    }

    @Test
    void nettysOwnConstantsAreRingwiresAndBadSizesAreRefused() throws Exception {
        assertSame(RingwireChannelOption.UDP_GRO, EpollChannelOption.UDP_GRO);
        assertSame(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE);
        assertSame(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, IoUringChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE);
        assertTrue(RingwireDatagramChannel.isSegmentedDatagramPacketSupported());
        RingwireDatagramChannel ch = registered(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4));
        try {
            assertFalse(ch.config().isUdpGro());
            assertTrue(ch.config().setOption(EpollChannelOption.UDP_GRO, true));
            assertTrue(ch.config().isUdpGro());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ch.config().setOption(RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, 70_000));
            assertTrue(e.getMessage().contains("70000"), e.getMessage());
            assertNotNull(ch.config().getOptions().get(RingwireChannelOption.UDP_GRO));
        } finally {
            ch.close().sync();
        }
    }

    /**
     * Segmented datagrams that wait in the kernel for room in the send buffer keep their own segment size. The
     * test's own network namespace gives lo a token bucket (tbf) whose first 6 KiB pass at once and the rest at
     * 1 KB/s: a datagram waiting there holds its socket's send buffer (at its minimum, SO_SNDBUF 1), so of a batch
     * of four the first arrives, the second waits in the bucket, and the other two meet EAGAIN and wait in the
     * kernel to be sent again once there is room. A second channel on the same loop then sends its own batch with
     * another segment size, and only then does the bucket let everything through. Each datagram must be cut at its
     * own packet's segment size, whenever the kernel sent it.
     */
    @Test
    void segmentedDatagramsThatWaitForRoomInTheSendBufferKeepTheirSegmentSize() throws Exception {
        try (TestNamespace ns = TestNamespace.create("gso", List.of(List.of("tc", "qdisc", "add", "dev", "lo",
            "root", "tbf", "rate", "8kbit", "burst", "6kb", "limit", "1000000")))) {
            ns.runInside(() -> {
                segmentsWaitingForRoom(ns);
                return null;
            });
        }
    }

    private static void segmentsWaitingForRoom(TestNamespace ns) throws Exception {
        int packets = 4;
        int length = 5_500;
        int segmentA = 1_000;
        int segmentB = 700;
        try (java.net.DatagramSocket peer = new java.net.DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
             java.net.DatagramSocket kick = new java.net.DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            peer.setSoTimeout(10_000);
            InetSocketAddress to = (InetSocketAddress) peer.getLocalSocketAddress();
            Channel a = smallSendBufferSender();
            Channel b = smallSendBufferSender();
            try {
                int portA = ((InetSocketAddress) a.localAddress()).getPort();
                int portB = ((InetSocketAddress) b.localAddress()).getPort();
                long before = counter(a, RingwireCounters::segmentedSends);
                List<io.netty.channel.ChannelFuture> writes = new ArrayList<>();
                for (int i = 0; i < packets; i++) {
                    writes.add(a.write(new SegmentedDatagramPacket(
                        Unpooled.directBuffer(length).writeBytes(DatagramChannelTest.pattern(length, 10 + i)),
                        segmentA, to)));
                }
                a.flush();
                List<byte[]> fromA = new ArrayList<>();
                List<byte[]> fromB = new ArrayList<>();
                java.net.DatagramPacket p = new java.net.DatagramPacket(new byte[65_536], 65_536);
                // the first packet's segments passed the bucket: the batch is in the kernel, its last two waiting
                while (fromA.isEmpty()) {
                    peer.receive(p);
                    assertEquals(portA, p.getPort());
                    fromA.add(java.util.Arrays.copyOf(p.getData(), p.getLength()));
                }
                for (int i = 0; i < packets; i++) {
                    writes.add(b.write(new SegmentedDatagramPacket(
                        Unpooled.directBuffer(length).writeBytes(DatagramChannelTest.pattern(length, 20 + i)),
                        segmentB, to)));
                }
                b.flush();
                for (int i = 0; i < 3000 && counter(a, RingwireCounters::segmentedSends) < before + 2 * packets; i++) {
                    Thread.sleep(10);
                }
                assertEquals(before + 2 * packets, counter(a, RingwireCounters::segmentedSends),
                    "the second batch was prepared while the first waited");
                // the bucket lets everything through now; a datagram from another socket makes lo's queue run
                assertEquals(0, ns.exec("tc", "qdisc", "change", "dev", "lo", "root", "tbf", "rate", "1gbit",
                    "burst", "1mb", "limit", "1000000"));
                kick.send(new java.net.DatagramPacket(new byte[1], 1, to));
                int segmentsA = packets * ((length + segmentA - 1) / segmentA);
                int segmentsB = packets * ((length + segmentB - 1) / segmentB);
                while (fromA.size() < segmentsA || fromB.size() < segmentsB) {
                    peer.receive(p);
                    byte[] got = java.util.Arrays.copyOf(p.getData(), p.getLength());
                    if (p.getPort() == portA) {
                        fromA.add(got);
                    } else if (p.getPort() == portB) {
                        fromB.add(got);
                    }
                }
                for (io.netty.channel.ChannelFuture f : writes) {
                    assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "sent: " + f.cause());
                }
                assertSegments(fromA, packets, length, 10, segmentA);
                assertSegments(fromB, packets, length, 20, segmentB);
            } finally {
                a.close().sync();
                b.close().sync();
            }
        }
    }

    private static Channel smallSendBufferSender() throws InterruptedException {
        return new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(ChannelOption.SO_SNDBUF, 1) // the kernel's minimum
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new InetSocketAddress(LOOPBACK, 0)).sync().channel();
    }

    /**
     * Asserts that {@code got} are the segments of {@code packets} patterns from {@code seed}: each packet's
     * segments whole and together, in order, each packet once. The packets themselves may come in another order:
     * sends that waited for room in the kernel are issued again in the order the kernel wakes them.
     */
    private static void assertSegments(List<byte[]> got, int packets, int length, int seed, int segment) {
        List<Integer> sizes = got.stream().map(d -> d.length).toList();
        List<Integer> expectedSizes = new ArrayList<>();
        for (int i = 0; i < packets; i++) {
            for (int at = 0; at < length; at += segment) {
                expectedSizes.add(Math.min(segment, length - at));
            }
        }
        assertEquals(expectedSizes, sizes, "datagram sizes: each packet cut at its own segment size, " + segment);
        int perPacket = expectedSizes.size() / packets;
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < packets; i++) {
            java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
            for (int j = 0; j < perPacket; j++) {
                whole.writeBytes(got.get(i * perPacket + j));
            }
            byte[] bytes = whole.toByteArray();
            int match = -1;
            for (int k = 0; k < packets; k++) {
                if (java.util.Arrays.equals(DatagramChannelTest.pattern(length, seed + k), bytes)) {
                    match = k;
                }
            }
            assertTrue(match >= 0, "packet " + i + " of segment size " + segment + " arrived whole, segments in order");
            assertTrue(seen.add(match), "packet " + match + " of segment size " + segment + " arrived once");
        }
    }
}
