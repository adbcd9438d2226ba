package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections name a slot of their loop's fixed-file table in their sends and receives from their 16th SQE on
 * ({@link RingwireIoHandlerConfig#fixedFiles()}): the table holds its own reference to each socket, so what matters
 * is that the slot is emptied whenever the channel leaves the loop, and that closing the channel still closes the
 * socket (the peer sees EOF); connections beyond the table, and short-lived ones, use their fd.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FixedFilesTest {
    @org.junit.jupiter.api.BeforeAll
    static void connectionsWithFds() {
        org.junit.jupiter.api.Assumptions.assumeFalse(RingwireIoHandlerConfig.builder().build().directDescriptors(),
            "these are the fd connections' slots: with direct descriptors every connection lives in a slot the kernel picks (DirectDescriptorsTest)");
    }

    private static final int SIZE = 1000;

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            accepted.add(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    private static Socket connect(Channel server) throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress()).getPort());
        s.setSoTimeout(30_000);
        return s;
    }

    private static void echoes(Socket s, int seed) throws Exception {
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        byte[] m = new byte[SIZE];
        for (int i = 0; i < 20; i++) {
            for (int j = 0; j < SIZE; j++) {
                m[j] = (byte) (seed * 31 + i * 7 + j);
            }
            out.write(m);
            assertArrayEquals(m, in.readNBytes(SIZE), "message " + i);
        }
    }

    /** The loop's count of connections holding a slot, read on the loop. */
    private static int fixedFiles(EventLoop loop) throws Exception {
        return loop.submit(() -> RingwireCounters.of(loop).fixedFiles()).get();
    }

    private static void awaitFixedFiles(EventLoop loop, int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fixedFiles(loop) != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(expected, fixedFiles(loop), () -> RingwireCounters.of(loop).toString());
    }

    private static void assertEof(Socket s) throws Exception {
        assertEquals(-1, s.getInputStream().read(), "the socket is closed, not held open by the table");
    }

    private static int slotOf(Channel c) throws Exception {
        return c.eventLoop().submit(() -> ((AbstractRingwireStreamChannel) c).socket.slot()).get();
    }

    private interface Body {
        void run(Channel server, Echo echo) throws Exception;
    }

    /** An echo server on a group of {@code loops} Ringwire loops with {@code config}, for {@code body}. */
    private static void withServer(int loops, RingwireIoHandlerConfig config, Body body) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, RingwireIoHandler.newFactory(config));
        try {
            Echo echo = new Echo();
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(echo).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            body.run(server, echo);
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static RingwireIoHandlerConfig defaults() {
        return RingwireIoHandlerConfig.builder().build();
    }

    @Test
    void aConnectionHoldsASlotUntilItClosesAndClosingStillClosesTheSocket() throws Exception {
        withServer(1, defaults(), (server, echo) -> {
            EventLoop loop = server.eventLoop();
            assertTrue(loop.submit(() -> RingwireCounters.of(loop).fixedFileSlots()).get() > 0, "a table by default");
            try (Socket s = connect(server)) {
                Channel child = echo.accepted.poll(30, TimeUnit.SECONDS);
                assertNotNull(child);
                assertTrue(slotOf(child) < 0, "none before its 16th SQE");
                echoes(s, 1); // 20 echoes: 20 SENDs
                assertEquals(0, slotOf(child), "the first slot");
                awaitFixedFiles(loop, 1);
                child.close().sync(); // the server closes: the slot is emptied, then the fd closed
                assertEof(s);
                awaitFixedFiles(loop, 0);
            }
            try (Socket s = connect(server)) { // the peer closes this time
                Channel child = echo.accepted.poll(30, TimeUnit.SECONDS);
                echoes(s, 2);
                assertEquals(0, slotOf(child), "the slot came back");
            }
            awaitFixedFiles(loop, 0);
        });
    }

    @Test
    void aShortConnectionNeverTakesASlot() throws Exception {
        withServer(1, defaults(), (server, echo) -> {
            try (Socket s = connect(server)) {
                Channel child = echo.accepted.poll(30, TimeUnit.SECONDS);
                byte[] m = "one request".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                s.getOutputStream().write(m);
                assertArrayEquals(m, s.getInputStream().readNBytes(m.length));
                assertTrue(slotOf(child) < -1, "still counting: " + slotOf(child));
                assertEquals(0, fixedFiles(server.eventLoop()));
            }
        });
    }

    @Test
    void connectionsBeyondTheTableUseTheirFd() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            withServer(1, RingwireIoHandlerConfig.builder().fixedFiles(2).build(), (server, echo) -> {
                List<Channel> children = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    sockets.add(connect(server));
                    children.add(echo.accepted.poll(30, TimeUnit.SECONDS));
                }
                List<Integer> slots = new ArrayList<>();
                for (int i = 0; i < sockets.size(); i++) {
                    echoes(sockets.get(i), i);
                    slots.add(slotOf(children.get(i)));
                }
                assertEquals(List.of(0, 1, -1, -1, -1), slots);
                assertEquals(2, fixedFiles(server.eventLoop()));
                for (Iterator<Socket> it = sockets.iterator(); it.hasNext(); ) {
                    it.next().close();
                    it.remove();
                }
                awaitFixedFiles(server.eventLoop(), 0);
            });
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void aChannelMovedToAnotherLoopTakesASlotThereAndFreesTheOldOne() throws Exception {
        withServer(2, defaults(), (server, echo) -> {
            try (Socket s = connect(server)) {
                Channel child = echo.accepted.poll(30, TimeUnit.SECONDS);
                EventLoop first = child.eventLoop();
                echoes(s, 3);
                awaitFixedFiles(first, 1);
                EventLoop second = first;
                while (second == first) {
                    second = (EventLoop) first.parent().next();
                }
                child.deregister().sync();
                awaitFixedFiles(first, 0);
                second.register(child).sync();
                echoes(s, 4);
                assertEquals(0, slotOf(child), "the new loop's first slot");
                awaitFixedFiles(second, 1);
                child.close().sync();
                assertEof(s);
                awaitFixedFiles(second, 0);
            }
        });
    }
}
