package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Ringwire's datagram channel promises beyond Netty's datagram tests (which run in the testsuite package):
 * many datagrams from one multishot RECVMSG, datagrams too big for their room reported and never delivered cut,
 * sends that start at the buffer's readerIndex, and empty datagrams sent as such, in order with the others.
 */
class DatagramChannelTest extends OneLoopTestBase {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A bound Ringwire datagram channel that puts what it receives, or the exceptions it catches, in queues. */
    private static Channel receiver(BlockingQueue<byte[]> received, BlockingQueue<Throwable> errors, int recvSize) {
        Bootstrap b = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                    received.add(io.netty.buffer.ByteBufUtil.getBytes(p.content()));
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    errors.add(cause);
                }
            });
        if (recvSize > 0) {
            b.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(recvSize));
        }
        b.option(ChannelOption.SO_RCVBUF, 4 << 20);
        return b.bind(new InetSocketAddress(LOOPBACK, 0)).syncUninterruptibly().channel();
    }

    /** @return {@code length} bytes that differ with {@code seed} and along the datagram */
    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void oneMultishotReceiveBringsManyDatagramsEachIntact() throws Exception {
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel ch = receiver(received, errors, 0);
        RingwireCounters counters = RingwireCounters.of(ch.eventLoop());
        try (java.net.DatagramSocket sender = new java.net.DatagramSocket(0, LOOPBACK)) {
            long directBefore = ch.eventLoop().submit(counters::directRecvs).get();
            // they all wait in the socket's receive buffer while the loop is held: 60 small datagrams take well under
            // the 416 KiB a default rmem_max allows (SO_RCVBUF is capped there), whatever the kernel's per-skb cost;
            // and fewer than the 64 buffers the loop's ring starts with, so none has to wait for it to grow
            int n = RingwireIoHandlerConfig.INITIAL_ENTRIES - 4;
            CountDownLatch release = hold(ch.eventLoop()); // they pile up in the socket while the loop is held
            for (int i = 0; i < n; i++) {
                byte[] d = pattern(100 + i, i);
                sender.send(new java.net.DatagramPacket(d, d.length, ch.localAddress()));
            }
            release.countDown();
            for (int i = 0; i < n; i++) {
                byte[] got = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(got, "datagram " + i + " arrived");
                assertArrayEquals(pattern(100 + i, i), got, "datagram " + i + " intact and in order");
            }
            assertEquals(List.of(), List.copyOf(errors));
            assertEquals(directBefore, (long) ch.eventLoop().submit(counters::directRecvs).get(),
                "all came through the buffer ring's multishot RECVMSG");
        } finally {
            ch.close().syncUninterruptibly();
        }
    }

    @Test
    void aDatagramTooBigForTheRingIsReportedNotCut() throws Exception {
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel ch = receiver(received, errors, 0); // Netty's default 2048-byte allocator: the ring's 8 KiB buffers
        try (java.net.DatagramSocket sender = new java.net.DatagramSocket(0, LOOPBACK)) {
            byte[] big = pattern(20_000, 1);
            byte[] small = pattern(3_000, 2);
            sender.send(new java.net.DatagramPacket(big, big.length, ch.localAddress()));
            sender.send(new java.net.DatagramPacket(small, small.length, ch.localAddress()));
            Throwable e = errors.poll(10, TimeUnit.SECONDS);
            assertTrue(e instanceof DatagramTruncatedException, String.valueOf(e));
            assertEquals(20_000, ((DatagramTruncatedException) e).length());
            assertEquals(sender.getLocalPort(), ((InetSocketAddress) ((DatagramTruncatedException) e).sender())
                .getPort());
            assertArrayEquals(small, received.poll(10, TimeUnit.SECONDS), "the next datagram comes whole");
            assertTrue(received.isEmpty(), "the cut one was not delivered");
        } finally {
            ch.close().syncUninterruptibly();
        }
    }

    @Test
    void aLargeAllocatorReceivesDirectlyAndStillReportsWhatDoesNotFit() throws Exception {
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel ch = receiver(received, errors, 32 * 1024);
        try (java.net.DatagramSocket sender = new java.net.DatagramSocket(0, LOOPBACK)) {
            byte[] large = pattern(30_000, 3);
            byte[] tooLarge = pattern(40_000, 4);
            sender.send(new java.net.DatagramPacket(large, large.length, ch.localAddress()));
            assertArrayEquals(large, received.poll(10, TimeUnit.SECONDS), "a 30,000-byte datagram whole");
            sender.send(new java.net.DatagramPacket(tooLarge, tooLarge.length, ch.localAddress()));
            Throwable e = errors.poll(10, TimeUnit.SECONDS);
            assertTrue(e instanceof DatagramTruncatedException, String.valueOf(e));
            assertEquals(40_000, ((DatagramTruncatedException) e).length());
            assertTrue(received.isEmpty(), "the cut one was not delivered");
        } finally {
            ch.close().syncUninterruptibly();
        }
    }

    @Test
    void sendsStartAtTheReaderIndex() throws Exception {
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel rx = receiver(received, errors, 0);
        Channel tx = receiver(new LinkedBlockingQueue<>(), errors, 0);
        try {
            byte[] bytes = pattern(64, 5);
            ByteBuf direct = Unpooled.directBuffer(64).writeBytes(bytes);
            direct.readerIndex(10);
            ByteBuf heap = Unpooled.wrappedBuffer(bytes).readerIndex(20);
            ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(bytes, 0, 32),
                Unpooled.directBuffer(32).writeBytes(bytes, 32, 32)).readerIndex(5);
            InetSocketAddress to = (InetSocketAddress) rx.localAddress();
            tx.writeAndFlush(new DatagramPacket(direct, to)).sync();
            tx.writeAndFlush(new DatagramPacket(heap, to)).sync();
            tx.writeAndFlush(new DatagramPacket(composite, to)).sync();
            assertArrayEquals(Arrays.copyOfRange(bytes, 10, 64), received.poll(10, TimeUnit.SECONDS));
            assertArrayEquals(Arrays.copyOfRange(bytes, 20, 64), received.poll(10, TimeUnit.SECONDS));
            assertArrayEquals(Arrays.copyOfRange(bytes, 5, 64), received.poll(10, TimeUnit.SECONDS));
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            rx.close().syncUninterruptibly();
            tx.close().syncUninterruptibly();
        }
    }

    /**
     * Empty datagrams flushed between others, each a zero-length datagram of its own, as Netty's testsuite 4.2.20
     * expects (testSendEmptyDatagramsInOneFlush): in one flush, as a direct buffer, a heap buffer (made direct by the
     * channel), an empty composite (no NIO buffer at all) and the shared empty buffer, each one SENDMSG of one
     * zero-length iovec; they arrive empty and in order, through the ring's multishot RECVMSG and through a receive
     * into the allocator's buffer alike.
     */
    @Test
    void emptyDatagramsFlushedBetweenOthersArriveEmptyAndInOrder() throws Exception {
        BlockingQueue<byte[]> viaRing = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> viaAllocator = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel ringRx = receiver(viaRing, errors, 0);
        Channel directRx = receiver(viaAllocator, errors, 32 * 1024);
        Channel tx = receiver(new LinkedBlockingQueue<>(), errors, 0);
        try {
            for (Channel rx : List.of(ringRx, directRx)) {
                InetSocketAddress to = (InetSocketAddress) rx.localAddress();
                List<io.netty.channel.ChannelFuture> writes = List.of(
                    tx.write(new DatagramPacket(Unpooled.wrappedBuffer(pattern(5, 1)), to)),
                    tx.write(new DatagramPacket(Unpooled.directBuffer(8), to)),
                    tx.write(new DatagramPacket(Unpooled.wrappedBuffer(pattern(6, 2)), to)),
                    tx.write(new DatagramPacket(Unpooled.buffer(8), to)),
                    tx.write(new DatagramPacket(Unpooled.compositeBuffer(), to)),
                    tx.write(new DatagramPacket(Unpooled.EMPTY_BUFFER, to)),
                    tx.write(new DatagramPacket(Unpooled.wrappedBuffer(pattern(7, 3)), to)));
                tx.flush();
                for (io.netty.channel.ChannelFuture f : writes) {
                    assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "sent: " + f.cause());
                }
            }
            for (BlockingQueue<byte[]> received : List.of(viaRing, viaAllocator)) {
                List<byte[]> expected = List.of(pattern(5, 1), new byte[0], pattern(6, 2), new byte[0], new byte[0],
                    new byte[0], pattern(7, 3));
                for (int i = 0; i < expected.size(); i++) {
                    byte[] got = received.poll(10, TimeUnit.SECONDS);
                    assertNotNull(got, "datagram " + i + " arrived");
                    assertArrayEquals(expected.get(i), got, "datagram " + i + " as sent, in order");
                }
            }
            assertEquals(List.of(), List.copyOf(errors));
        } finally {
            ringRx.close().syncUninterruptibly();
            directRx.close().syncUninterruptibly();
            tx.close().syncUninterruptibly();
        }
    }
}
