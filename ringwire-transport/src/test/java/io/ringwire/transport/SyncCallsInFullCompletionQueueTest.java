package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.IoUringProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Synchronous calls (an SQE submitted and its result waited for, {@link SyncCalls#call}) made by
 * completion handlers while the loop hands out a batch that filled its CQ: 16 entries, and 200 connections' data
 * completing at once, so the kernel keeps most completions on its overflow list. A call's operation runs whatever the
 * CQ holds; the call must then get its result, so that its effect is handled: a close sends what was flushed (SENDMSG)
 * exactly once and then closes; an address read through an installed fd (FIXED_FD_INSTALL) closes that fd; a client
 * connected from a handler on its own loop joins the loop's table (SOCKET, or FILES_UPDATE for an fd) and its
 * connect completes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SyncCallsInFullCompletionQueueTest {
    private static final int CONNECTIONS = 200;
    private static final int SIZE = 1000;
    private static final RingwireIoHandlerConfig SMALL_DIRECT = RingwireIoHandlerConfig.builder().ringEntries(16)
        .cqEntries(16).directDescriptors(true).build();

    private static byte[] message(int conn) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = (byte) (conn * 7 + i);
        }
        return b;
    }

    /** Echoes the first message and closes: write, flush and close in one channelRead. */
    @ChannelHandler.Sharable
    private static class EchoOnceAndClose extends ChannelInboundHandlerAdapter {
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reads.incrementAndGet();
            ctx.write(msg);
            ctx.flush();
            ctx.close().addListener(f -> {
                if (!f.isSuccess()) {
                    failures.add(f.cause());
                }
            });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failures.add(cause);
            ctx.close();
        }
    }

    @Test
    void closeInChannelReadSendsTheEchoOnceThenEndsTheStream() throws Exception {
        EchoOnceAndClose handler = new EchoOnceAndClose();
        List<String> wrong = everyClientGetsItsMessageOnceThenEof(handler, b -> { }, true);
        assertNothingWrong(wrong, handler);
    }

    @Test
    void localAddressInChannelReadIsKnownAndLeaksNoDescriptor() throws Exception {
        AtomicInteger withoutAddress = new AtomicInteger();
        EchoOnceAndClose handler = new EchoOnceAndClose() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (ctx.channel().localAddress() == null) {
                    withoutAddress.incrementAndGet();
                }
                super.channelRead(ctx, msg);
            }
        };
        long baseline = TrackingEcho.openFds();
        List<String> wrong = everyClientGetsItsMessageOnceThenEof(handler, b -> { }, true);
        assertEquals(0, withoutAddress.get(), () -> "connections whose local address was not known; handler "
            + "failures: " + summary(handler.failures));
        assertNothingWrong(wrong, handler);
        assertEquals(baseline, TrackingEcho.openFdsBackTo(baseline), "open descriptors after every connection closed");
    }

    /**
     * A close with SO_LINGER set reads the option first: a lingering close leaves the loop (close(2) may wait for
     * the peer), its socket as an fd installed for it. Every close must be one that leaves the loop, and each client
     * see the end of its stream.
     */
    @Test
    void closeWithSoLingerInChannelReadLeavesTheLoopAndEndsTheStream() throws Exception {
        AtomicInteger onTheLoop = new AtomicInteger();
        EchoOnceAndClose handler = new EchoOnceAndClose() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                reads.incrementAndGet();
                ((ByteBuf) msg).release();
                ctx.close().addListener(f -> {
                    if (!f.isSuccess()) {
                        failures.add(f.cause());
                    }
                });
                if (!((AbstractRingwireChannel) ctx.channel()).closingOffLoop) {
                    onTheLoop.incrementAndGet();
                }
            }
        };
        List<String> wrong = everyClientGetsItsMessageOnceThenEof(handler,
            b -> b.childOption(io.netty.channel.ChannelOption.SO_LINGER, 1), false);
        assertEquals(0, onTheLoop.get(), "lingering closes made on the loop (SO_LINGER read as 0)");
        assertNothingWrong(wrong, handler);
    }

    /**
     * The proxy pattern: each connection's first message makes a client to a backend on the same loop; once it is
     * connected the message is echoed and both close. Its registration makes its socket in the loop's table (SOCKET)
     * or moves its fd there (FILES_UPDATE) while the loop hands out the batch.
     */
    @Test
    void clientConnectedFromAHandlerOnItsOwnLoopConnects() throws Exception {
        EventLoopGroup backendGroup = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        try {
            AtomicInteger backendAccepted = new AtomicInteger();
            Channel backend = new ServerBootstrap().group(backendGroup).channel(RingwireServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        backendAccepted.incrementAndGet();
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            InetSocketAddress backendAddress = (InetSocketAddress) backend.localAddress();
            EchoOnceAndClose handler = new EchoOnceAndClose() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    reads.incrementAndGet();
                    ChannelFuture connect;
                    try {
                        connect = new Bootstrap().group(ctx.channel().eventLoop())
                            .channel(RingwireSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
                            .connect(backendAddress);
                    } catch (Throwable t) {
                        failures.add(t);
                        ((ByteBuf) msg).release();
                        ctx.close();
                        return;
                    }
                    connect.addListener((ChannelFuture f) -> {
                        if (!f.isSuccess()) {
                            failures.add(f.cause());
                            ((ByteBuf) msg).release();
                        } else {
                            ctx.writeAndFlush(msg);
                            f.channel().close();
                        }
                        ctx.close();
                    });
                }
            };
            List<String> wrong = everyClientGetsItsMessageOnceThenEof(handler, b -> { }, true);
            assertNothingWrong(wrong, handler);
            backend.close().sync();
        } finally {
            backendGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static void assertNothingWrong(List<String> wrong, EchoOnceAndClose handler) {
        assertTrue(wrong.isEmpty(), () -> wrong.size() + " connections wrong, e.g. " + wrong.subList(0,
            Math.min(3, wrong.size())) + "; handler failures: " + summary(handler.failures));
        assertTrue(handler.failures.isEmpty(), () -> "handler failures: " + summary(handler.failures));
        assertEquals(CONNECTIONS, handler.reads.get(), "one read per connection");
    }

    /** @return how many failures, and the first */
    private static String summary(Queue<Throwable> failures) {
        return failures.size() + (failures.isEmpty() ? "" : ", the first: " + failures.peek());
    }

    /**
     * 200 clients connect to a server whose child handler is {@code handler}; with its loop held, each sends one
     * message, so that the loop's next enter completes every receive at once; each client must then read its message
     * back once ({@code echoed}), and then the end of the stream.
     *
     * @return what the clients found wrong, empty if nothing
     */
    private static List<String> everyClientGetsItsMessageOnceThenEof(EchoOnceAndClose handler,
                                                                     java.util.function.Consumer<ServerBootstrap> options,
                                                                     boolean echoed) throws Exception {
        assumeTrue(IoUringProbe.get().isDirectDescriptorsSupported(),
            "kernel lacks what direct descriptors need: " + IoUringProbe.get().missingForDirectDescriptors());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(SMALL_DIRECT));
        List<Socket> clients = new ArrayList<>();
        try {
            CountDownLatch active = new CountDownLatch(CONNECTIONS);
            ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(handler);
                        active.countDown();
                    }
                });
            options.accept(bootstrap);
            Channel server = bootstrap.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
                .channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (int c = 0; c < CONNECTIONS; c++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.setTcpNoDelay(true);
                s.setSoTimeout(30_000); // a guard against a hang only: every read below has its answer long before
                clients.add(s);
            }
            assertTrue(active.await(30, TimeUnit.SECONDS), "every connection accepted");
            // hold the loop while every client's message arrives: its next enter then completes them all at once
            CountDownLatch release = OneLoopTestBase.hold(server.eventLoop());
            for (int c = 0; c < CONNECTIONS; c++) {
                OutputStream out = clients.get(c).getOutputStream();
                out.write(message(c));
                out.flush();
            }
            release.countDown();
            List<String> wrong = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                InputStream in = clients.get(c).getInputStream();
                try {
                    if (echoed) {
                        assertArrayEquals(message(c), in.readNBytes(SIZE), "connection " + c + "'s echo");
                    }
                    int next = in.read();
                    if (next != -1) {
                        wrong.add("connection " + c + ": more bytes after its echo (" + (in.available() + 1) + ")");
                    }
                } catch (SocketTimeoutException e) {
                    wrong.add("connection " + c + ": neither more bytes nor the end of the stream (the "
                        + (CONNECTIONS - c - 1) + " after it not read)");
                    break;
                }
            }
            server.close().sync();
            return wrong;
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
