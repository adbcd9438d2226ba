package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ringwire's Unix domain datagram channel beyond Netty's unicast test: many datagrams through the buffer ring, whole
 * and in order; a datagram too big for its room reported, not cut; a sender that did not bind seen as the empty
 * path, and an answer to it refused with a clear error while the channel stays open; empty datagrams sent as such, in
 * order with the others; no descriptor left behind.
 */
class DomainDatagramChannelTest extends OneLoopTestBase {
    private record Received(DomainSocketAddress sender, byte[] bytes) { }

    /** A second loop, for a receiver that can be held while the first one sends. */
    private static EventLoopGroup otherGroup;

    @BeforeAll
    static void startOtherLoop() {
        otherGroup = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
    }

    @AfterAll
    static void stopOtherLoop() throws InterruptedException {
        otherGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    private static DomainSocketAddress abstractName() {
        return new DomainSocketAddress("\0ringwire-dgram-" + UUID.randomUUID());
    }

    private static Channel open(DomainSocketAddress bindTo, BlockingQueue<Received> received,
                                BlockingQueue<Throwable> errors) {
        return open(group, bindTo, received, errors);
    }

    private static Channel open(EventLoopGroup on, DomainSocketAddress bindTo, BlockingQueue<Received> received,
                                BlockingQueue<Throwable> errors) {
        Bootstrap b = new Bootstrap().group(on).channel(RingwireDomainDatagramChannel.class)
            .option(ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION, true)
            .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket p) {
                    received.add(new Received(p.sender(), ByteBufUtil.getBytes(p.content())));
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    errors.add(cause);
                }
            });
        return bindTo == null ? b.register().syncUninterruptibly().channel()
            : b.bind(bindTo).syncUninterruptibly().channel();
    }

    private static byte[] pattern(int length, int seed) {
        return DatagramChannelTest.pattern(length, seed);
    }

    @Test
    void manyDatagramsArriveWholeAndInOrderWithTheirSender() throws Exception {
        long fdsBefore = TrackingEcho.openFds();
        BlockingQueue<Received> atServer = new LinkedBlockingQueue<>();
        BlockingQueue<Received> atClient = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress serverName = abstractName();
        DomainSocketAddress clientName = abstractName();
        Channel server = open(otherGroup, serverName, atServer, errors);
        Channel client = open(clientName, atClient, errors);
        try {
            assertEquals(serverName, server.localAddress());
            RingwireCounters counters = RingwireCounters.of(client.eventLoop());
            long waitsBefore = client.eventLoop().submit(counters::sendWaits).get();
            int n = 500;
            int queueLength = Integer.parseInt(java.nio.file.Files.readAllLines(
                java.nio.file.Path.of("/proc/sys/net/unix/max_dgram_qlen")).get(0).trim());
            // the server's loop is held: its socket's queue fills (net.unix.max_dgram_qlen, 10 by default) and the
            // client's sends must wait for room
            CountDownLatch release = hold(server.eventLoop());
            for (int i = 0; i < n; i++) {
                client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(1 + i * 3, i)), serverName));
                if (i % 50 == 49) {
                    client.flush();
                }
            }
            client.flush();
            // the server is released only once the client has met its full queue (however slow the machine): the
            // wait below is what this test is about
            for (int i = 0; i < 3000 && queueLength < n
                && client.eventLoop().submit(counters::sendWaits).get() == waitsBefore; i++) {
                Thread.sleep(10);
            }
            release.countDown();
            for (int i = 0; i < n; i++) {
                Received r = atServer.poll(10, TimeUnit.SECONDS);
                assertNotNull(r, "datagram " + i + " arrived");
                assertArrayEquals(pattern(1 + i * 3, i), r.bytes(), "datagram " + i + " whole and in order");
                assertEquals(clientName, r.sender());
            }
            // the sends met the server's queue full: the rest waited for room and went on, none lost, none empty,
            // none out of order
            if (queueLength < n) {
                assertTrue(client.eventLoop().submit(counters::sendWaits).get() > waitsBefore,
                    "the sends stopped at the full queue and waited for room");
            }
            // and back, to the sender the server saw
            server.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(77, 7)), clientName)).sync();
            Received back = atClient.poll(10, TimeUnit.SECONDS);
            assertNotNull(back);
            assertArrayEquals(pattern(77, 7), back.bytes());
            assertEquals(serverName, back.sender());
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "no descriptor left behind");
    }

    @Test
    void aDatagramTooBigForItsRoomIsReportedNotCut() throws Exception {
        BlockingQueue<Received> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress serverName = abstractName();
        Channel server = open(serverName, received, errors); // Netty's 2048-byte receive allocator
        Channel client = open(abstractName(), new LinkedBlockingQueue<>(), errors);
        try {
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(20_000, 1)), serverName))
                .sync();
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(1_000, 2)), serverName))
                .sync();
            Throwable e = errors.poll(10, TimeUnit.SECONDS);
            DatagramTruncatedException t = assertInstanceOf(DatagramTruncatedException.class, e);
            assertEquals(20_000, t.length());
            assertEquals(client.localAddress(), t.sender());
            Received next = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(next, "the next datagram comes");
            assertArrayEquals(pattern(1_000, 2), next.bytes(), "whole");
            assertTrue(received.isEmpty(), "the cut one was not delivered");
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void anUnboundSenderIsTheEmptyPathAndCannotBeAnswered() throws Exception {
        BlockingQueue<Received> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress serverName = abstractName();
        Channel server = open(serverName, received, errors);
        Channel client = open(null, new LinkedBlockingQueue<>(), errors); // registered, never bound
        try {
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(10, 3)), serverName)).sync();
            Received r = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(r);
            assertEquals(new DomainSocketAddress(""), r.sender());
            Throwable refused = server.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(new byte[1]),
                r.sender())).await().cause();
            assertInstanceOf(IllegalArgumentException.class, refused);
            assertTrue(refused.getMessage().contains("1 to 107 bytes"), refused.getMessage());
            assertTrue(server.isOpen(), "the channel stays open");
            CountDownLatch again = new CountDownLatch(1);
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(10, 4)), serverName))
                .addListener(f -> again.countDown());
            assertTrue(again.await(10, TimeUnit.SECONDS));
            assertArrayEquals(pattern(10, 4), received.poll(10, TimeUnit.SECONDS).bytes());
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void aDatagramTheKernelRefusesFailsAloneAndTheOthersOfItsFlushArrive() throws Exception {
        BlockingQueue<Received> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress serverName = abstractName();
        Channel server = open(serverName, received, errors);
        Channel client = open(abstractName(), new LinkedBlockingQueue<>(), errors);
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ringwire-dgram");
        try {
            // a path with no socket file (ENOENT), a name nobody bound (ECONNREFUSED), a datagram larger than the
            // socket's send buffer can ever hold (EMSGSIZE); each between two good datagrams, all in one flush
            DomainSocketAddress missing = new DomainSocketAddress(dir.resolve("nobody").toString());
            DomainSocketAddress unbound = abstractName();
            record Bad(DomainSocketAddress to, int length, Class<? extends Throwable> type, String says) { }
            List<Bad> bads = List.of(new Bad(missing, 10, java.io.FileNotFoundException.class, "ENOENT"),
                new Bad(unbound, 10, java.io.IOException.class, "ECONNREFUSED"),
                new Bad(serverName, 1 << 20, java.io.IOException.class, "EMSGSIZE"));
            int seed = 0;
            for (Bad bad : bads) {
                byte[] first = pattern(100, ++seed);
                byte[] second = pattern(200, ++seed);
                io.netty.channel.ChannelFuture good1 =
                    client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(first), serverName));
                io.netty.channel.ChannelFuture failed =
                    client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(bad.length(), 0)), bad.to()));
                io.netty.channel.ChannelFuture good2 =
                    client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(second), serverName));
                client.flush();
                assertTrue(failed.await(10, TimeUnit.SECONDS));
                Throwable cause = failed.cause();
                assertInstanceOf(bad.type(), cause, () -> "the bad datagram to " + bad.to() + ": " + cause);
                assertTrue(String.valueOf(cause.getMessage()).contains(bad.says()),
                    () -> "says " + bad.says() + ": " + cause);
                assertTrue(good1.await(10, TimeUnit.SECONDS) && good1.isSuccess(),
                    () -> "the one before: " + good1.cause());
                assertTrue(good2.await(10, TimeUnit.SECONDS) && good2.isSuccess(),
                    () -> "the one after: " + good2.cause());
                Received r1 = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(r1, "the one before arrived");
                assertArrayEquals(first, r1.bytes());
                Received r2 = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(r2, "the one after arrived");
                assertArrayEquals(second, r2.bytes());
                assertTrue(client.isOpen(), "the channel stays open");
            }
            assertTrue(received.isEmpty(), "nothing else arrived");
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    /**
     * A loop whose SQ holds 8 entries sends a flush of 40 datagrams as one batch that the SQ cannot hold: the
     * first 30 go to a receiver whose loop is held, so its queue fills and a send meets EAGAIN; the last 10 go to
     * another receiver with room. Each datagram must arrive once, in order, whether it went before or after the
     * wait for room.
     */
    @Test
    void aBatchLongerThanTheSubmissionQueueSendsEachDatagramOnce() throws Exception {
        EventLoopGroup smallSq = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().ringEntries(8).cqEntries(64).build()));
        BlockingQueue<Received> atFull = new LinkedBlockingQueue<>();
        BlockingQueue<Received> atFree = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress fullName = abstractName();
        DomainSocketAddress freeName = abstractName();
        Channel full = open(otherGroup, fullName, atFull, errors);
        Channel free = open(freeName, atFree, errors);
        Channel client = open(smallSq, abstractName(), new LinkedBlockingQueue<>(), errors);
        CountDownLatch release = null;
        try {
            RingwireCounters counters = RingwireCounters.of(client.eventLoop());
            long waitsBefore = client.eventLoop().submit(counters::sendWaits).get();
            release = hold(full.eventLoop());
            int toFull = 30;
            int toFree = 8; // under net.unix.max_dgram_qlen (10 by default): the free receiver's queue never fills
            client.eventLoop().submit(() -> {
                for (int i = 0; i < toFull; i++) {
                    client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(10 + i, i)), fullName));
                }
                for (int i = 0; i < toFree; i++) {
                    client.write(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(50 + i, 100 + i)), freeName));
                }
                client.flush();
            }).sync();
            for (int i = 0; i < 3000 && client.eventLoop().submit(counters::sendWaits).get() == waitsBefore; i++) {
                Thread.sleep(10);
            }
            assertTrue(client.eventLoop().submit(counters::sendWaits).get() > waitsBefore,
                "a send met the held receiver's full queue");
            release.countDown();
            for (int i = 0; i < toFull; i++) {
                Received r = atFull.poll(10, TimeUnit.SECONDS);
                assertNotNull(r, "datagram " + i + " to the held receiver arrived");
                assertArrayEquals(pattern(10 + i, i), r.bytes(), "datagram " + i + " to the held receiver, in order");
            }
            // the last datagrams of the channel, after all the others: whatever was sent twice arrives before them
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(3, 998)), fullName)).sync();
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(3, 999)), freeName)).sync();
            for (int i = 0; i < toFree; i++) {
                Received r = atFree.poll(10, TimeUnit.SECONDS);
                assertNotNull(r, "datagram " + i + " to the free receiver arrived");
                assertArrayEquals(pattern(50 + i, 100 + i), r.bytes(),
                    "datagram " + i + " to the free receiver, once and in order");
            }
            Received last = atFree.poll(10, TimeUnit.SECONDS);
            assertNotNull(last);
            assertArrayEquals(pattern(3, 999), last.bytes(), "no datagram sent twice");
            Received lastAtFull = atFull.poll(10, TimeUnit.SECONDS);
            assertNotNull(lastAtFull);
            assertArrayEquals(pattern(3, 998), lastAtFull.bytes(), "no datagram to the held receiver sent twice");
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            if (release != null) {
                release.countDown();
            }
            client.close().syncUninterruptibly();
            free.close().syncUninterruptibly();
            full.close().syncUninterruptibly();
            smallSq.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * Empty datagrams between others, in one flush: one linked chain of SENDMSGs, each empty one a zero-length iovec.
     * They arrive empty and in order, first at a receiver with room, then at one whose loop is held, so that its
     * queue (net.unix.max_dgram_qlen, which counts empty datagrams too) fills, a send of the chain meets EAGAIN and
     * the rest go once there is room: none lost, none sent twice.
     */
    @Test
    void emptyDatagramsFlushedBetweenOthersArriveEmptyAndInOrder() throws Exception {
        BlockingQueue<Received> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DomainSocketAddress serverName = abstractName();
        DomainSocketAddress clientName = abstractName();
        Channel server = open(otherGroup, serverName, received, errors);
        Channel client = open(clientName, new LinkedBlockingQueue<>(), errors);
        CountDownLatch release = null;
        try {
            // the i-th datagram: every third one empty, in a direct, a heap or a composite buffer by turns
            java.util.function.IntFunction<byte[]> bytes = i -> i % 3 == 1 ? new byte[0] : pattern(4 + i, i);
            java.util.function.IntFunction<io.netty.buffer.ByteBuf> buffer = i -> switch (i % 9) {
                case 1 -> Unpooled.directBuffer(16);
                case 4 -> Unpooled.buffer(16);
                case 7 -> Unpooled.compositeBuffer();
                default -> Unpooled.wrappedBuffer(bytes.apply(i));
            };
            int first = 5;
            List<io.netty.channel.ChannelFuture> writes = new java.util.ArrayList<>();
            for (int i = 0; i < first; i++) {
                writes.add(client.write(new DomainDatagramPacket(buffer.apply(i), serverName)));
            }
            client.flush();
            for (int i = 0; i < first; i++) {
                Received r = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(r, "datagram " + i + " arrived");
                assertArrayEquals(bytes.apply(i), r.bytes(), "datagram " + i + " as sent, in order");
                assertEquals(clientName, r.sender());
            }
            RingwireCounters counters = RingwireCounters.of(client.eventLoop());
            long waitsBefore = client.eventLoop().submit(counters::sendWaits).get();
            int queueLength = Integer.parseInt(java.nio.file.Files.readAllLines(
                java.nio.file.Path.of("/proc/sys/net/unix/max_dgram_qlen")).get(0).trim());
            int n = first + 60;
            release = hold(server.eventLoop());
            for (int i = first; i < n; i++) {
                writes.add(client.write(new DomainDatagramPacket(buffer.apply(i), serverName)));
            }
            client.flush();
            // the server is released once the client has met its full queue (however slow the machine)
            for (int i = 0; i < 3000 && queueLength < n - first
                && client.eventLoop().submit(counters::sendWaits).get() == waitsBefore; i++) {
                Thread.sleep(10);
            }
            release.countDown();
            for (int i = first; i < n; i++) {
                Received r = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(r, "datagram " + i + " arrived");
                assertArrayEquals(bytes.apply(i), r.bytes(), "datagram " + i + " as sent, in order");
            }
            for (io.netty.channel.ChannelFuture f : writes) {
                assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "sent: " + f.cause());
            }
            if (queueLength < n - first) {
                assertTrue(client.eventLoop().submit(counters::sendWaits).get() > waitsBefore,
                    "the sends stopped at the full queue and waited for room");
            }
            // the channel's last datagram, after all the others: whatever was sent twice would arrive before it
            client.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(pattern(3, 999)), serverName)).sync();
            Received last = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(last);
            assertArrayEquals(pattern(3, 999), last.bytes(), "no datagram sent twice");
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            if (release != null) {
                release.countDown();
            }
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }
}
