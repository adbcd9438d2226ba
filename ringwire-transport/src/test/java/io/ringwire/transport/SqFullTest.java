package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An SQ of 8 and a CQ of 64, and 300 connections whose first byte makes the server close them, all arriving while
 * the loop is held: the loop's next enter posts 300 completions into 64 slots, and while it handles the first 64
 * (their CQ slots not yet given back) each close queues a cancel. The SQ fills after 8; submitting then meets a CQ the
 * kernel cannot flush its overflow into, and io_uring_enter takes nothing (EBUSY). Every SQE a channel could not
 * queue must wait for the next iteration instead of being lost or throwing out of close: every connection closed
 * (each client sees EOF), every server channel's registration finished, and the loop still serves.
 *
 * <p>Linux 6.x's io_uring_enter takes SQEs even then, so the refusal itself is injected in the second test
 * ({@link TestHooks#refuseSqes}): hundreds of refused receives, sends and cancels, and every echo still comes
 * back whole and every registration still ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqFullTest {
    private static final int CONNECTIONS = 300;

    @ChannelHandler.Sharable
    private static final class CloseOnRead extends ChannelInboundHandlerAdapter {
        final CountDownLatch active = new CountDownLatch(CONNECTIONS);
        final Set<Channel> channels = ConcurrentHashMap.newKeySet();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channels.add(ctx.channel());
            active.countDown();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            ctx.close();
        }
    }

    private static byte[] message(int conn, int round) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = (byte) (conn * 7 + round * 13 + i);
        }
        return b;
    }

    private static final int SIZE = 3000;

    @Test
    void everythingTheKernelRefusesIsQueuedAgain() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        List<Socket> clients = new ArrayList<>();
        try {
            TrackingEcho echo = new TrackingEcho(CONNECTIONS);
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(echo).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (int c = 0; c < CONNECTIONS; c++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.setTcpNoDelay(true);
                s.setSoTimeout(30_000);
                clients.add(s);
            }
            assertTrue(echo.active.await(30, TimeUnit.SECONDS), "every connection accepted");
            RingwireIoHandler handler = server.eventLoop().submit(() -> handlerOf(server)).get();
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            for (int round = 0; round < 3; round++) {
                // the next 500 SQEs the loop asks for are refused, whichever they are: re-arms, sends, cancels; the
                // round's sends all come after, so its echoes need every one of those refusals to be retried
                server.eventLoop().submit(() -> TestHooks.refuseSqes(handler, 500)).get();
                for (int c = 0; c < CONNECTIONS; c++) {
                    clients.get(c).getOutputStream().write(message(c, round));
                }
                for (int c = 0; c < CONNECTIONS; c++) {
                    assertArrayEquals(message(c, round), clients.get(c).getInputStream().readNBytes(SIZE),
                        "connection " + c + ", round " + round);
                }
            }
            server.eventLoop().submit(() -> TestHooks.refuseSqes(handler, 500)).get();
            for (Socket s : clients) {
                s.close(); // the server's channels see EOF and close: their cancels meet refusals too
            }
            for (Channel ch : echo.channels) {
                assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS), ch + " closed");
            }
            assertEquals(1, registrationsSettled(server, counters), () -> "registrations left: " + counters);
            long refused = server.eventLoop().submit(counters::sqRefusals).get();
            assertTrue(refused >= 1500, () -> "the injected refusals happened: " + counters);
            server.close().sync();
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static RingwireIoHandler handlerOf(Channel ch) {
        return ((RingwireIoRegistration) ((AbstractRingwireChannel) ch).registration).handler();
    }

    /** Registrations of the loop once every completion due has come (bounded wait, decided by the count). */
    private static int registrationsSettled(Channel server, RingwireCounters counters) throws Exception {
        int registered = server.eventLoop().submit(() -> counters.registrations()).get();
        for (int i = 0; i < 200 && registered > 1; i++) {
            Thread.sleep(50);
            registered = server.eventLoop().submit(() -> counters.registrations()).get();
        }
        return registered;
    }

    @Test
    void closesThatFindTheSubmissionQueueFullStillHappen() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().ringEntries(8).cqEntries(64).build()));
        List<Socket> clients = new ArrayList<>();
        try {
            CloseOnRead handler = new CloseOnRead();
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(handler).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
                .channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (int c = 0; c < CONNECTIONS; c++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
            }
            assertTrue(handler.active.await(30, TimeUnit.SECONDS), "every connection accepted");
            CountDownLatch release = OneLoopTestBase.hold(server.eventLoop());
            for (Socket s : clients) {
                s.getOutputStream().write(1);
            }
            release.countDown();
            for (int c = 0; c < CONNECTIONS; c++) {
                clients.get(c).setSoTimeout(30_000);
                assertEquals(-1, clients.get(c).getInputStream().read(), "connection " + c + " closed by the server");
            }
            for (Channel ch : handler.channels) {
                assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS), ch + " closed");
            }
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            // every registration but the server's ended: all their completions, cancels included, came back
            assertEquals(1, registrationsSettled(server, counters), () -> "registrations left: " + counters);

            // and the loop still serves
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.getOutputStream().write(1);
                InputStream in = s.getInputStream();
                s.setSoTimeout(30_000);
                assertArrayEquals(new byte[0], in.readAllBytes());
            }
            server.close().sync();
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
