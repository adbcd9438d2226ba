package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive ring that grew for a burst gives its buffers back once the loop needs fewer (memory follows the load):
 * while one connection then echoes small messages, the ring shrinks to what a batch of completions
 * needed (at least its initial 64 buffers) and the pages of the rest go back to the system; every echoed byte is
 * intact, during the shrink and after; and a second burst grows the ring again without any receive falling back to a
 * buffer of its own. The loop looks at what it needed every 50 ms here; when is up to the machine, so the test waits
 * for the outcome, not for a time.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RingShrinkTest {
    private static final int CONNS = 100;
    private static final int BYTES = 32 * 1024;

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        final CountDownLatch active = new CountDownLatch(CONNS + 1);

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.countDown();
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    void aRingThatGrewForABurstShrinksBackAndGrowsAgain() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().bufferRingShrinkMillis(50).build()));
        Echo echo = new Echo();
        List<Socket> clients = new ArrayList<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(echo).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            for (int c = 0; c <= CONNS; c++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.setSoTimeout(20_000);
                clients.add(s);
            }
            assertTrue(echo.active.await(20, TimeUnit.SECONDS), "every connection accepted before the burst");
            Socket trickle = clients.get(CONNS);

            burst(server, clients);
            int grown = server.eventLoop().submit(counters::bufferRingBuffers).get();
            assertTrue(grown > RingwireIoHandlerConfig.INITIAL_ENTRIES,
                () -> "a burst of " + CONNS + " × 32 KiB grew the ring: " + counters);

            // one connection echoing small messages, one receive each: every buffer in the ring is used once in
            // `grown` receives, so the ones above the new size all come back
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int sent = 0;
            while (true) {
                roundTrip(trickle, sent++);
                if (sent % 64 == 0) {
                    int now = server.eventLoop().submit(counters::bufferRingBuffers).get();
                    long released = server.eventLoop().submit(counters::bufferRingReleasedBytes).get();
                    if (now < grown && released > 0) {
                        assertTrue(now >= RingwireIoHandlerConfig.INITIAL_ENTRIES,
                            () -> "never below the initial size: " + counters);
                        break;
                    }
                    assertTrue(System.nanoTime() < deadline,
                        () -> "the ring shrank back after the burst (" + grown + " buffers): " + counters);
                }
            }
            long shrinks = server.eventLoop().submit(counters::bufferRingShrinks).get();
            assertTrue(shrinks >= 1, counters::toString);
            for (int i = 0; i < 200; i++) {
                roundTrip(trickle, sent++); // after the shrink too, every byte intact
            }

            burst(server, clients);
            assertTrue(server.eventLoop().submit(counters::bufferRingExhausted).get() >= 2,
                () -> "the second burst found the smaller ring empty and grew it: " + counters);
            assertEquals(0L, (long) server.eventLoop().submit(counters::dryRingFallbacks).get(),
                () -> "a ring that could grow sent no receive to a buffer of its own: " + counters);
            server.close().sync();
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** Every burst connection writes 32 KiB while the loop is held, then reads its echo back and checks it. */
    private static void burst(Channel server, List<Socket> clients) throws Exception {
        CountDownLatch release = OneLoopTestBase.hold(server.eventLoop());
        List<byte[]> sent = new ArrayList<>();
        try {
            for (int c = 0; c < CONNS; c++) {
                byte[] data = new byte[BYTES];
                for (int i = 0; i < BYTES; i++) {
                    data[i] = (byte) (c * 7 + i * 13 + sent.size());
                }
                sent.add(data);
                clients.get(c).getOutputStream().write(data);
            }
        } finally {
            release.countDown();
        }
        for (int c = 0; c < CONNS; c++) {
            byte[] back = new byte[BYTES];
            new DataInputStream(clients.get(c).getInputStream()).readFully(back);
            assertArrayEquals(sent.get(c), back, "connection " + c + "'s echo intact");
        }
    }

    private static void roundTrip(Socket s, int n) throws IOException {
        byte[] msg = new byte[100];
        Arrays.fill(msg, (byte) n);
        msg[0] = (byte) (n >>> 8);
        s.getOutputStream().write(msg);
        byte[] back = new byte[msg.length];
        new DataInputStream(s.getInputStream()).readFully(back);
        assertArrayEquals(msg, back, "message " + n + " echoed intact");
    }
}
