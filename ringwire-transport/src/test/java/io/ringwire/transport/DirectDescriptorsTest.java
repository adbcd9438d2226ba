package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.util.concurrent.EventExecutor;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.Libc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Connections on direct descriptors ({@link RingwireIoHandlerConfig#directDescriptors()}): their sockets live in the
 * loops' fixed-file tables and hold no file descriptor. Accepted into the listener's loop and moved to the worker's
 * (MSG_RING), clients made in a slot (SOCKET), they echo, take options and give addresses, move between loops, shut
 * down halves, send files and pass descriptors, and close; the process's descriptors do not grow with them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectDescriptorsTest {
    private static final RingwireIoHandlerConfig DIRECT = RingwireIoHandlerConfig.builder().directDescriptors(true)
        .build();
    private static EventLoopGroup boss;
    private static EventLoopGroup workers;
    private static EventLoopGroup clients;

    @TempDir
    Path dir;

    @BeforeAll
    static void startLoops() {
        assumeTrue(IoUringProbe.get().missingForDirectDescriptors().isEmpty(),
            "kernel lacks what direct descriptors need: " + IoUringProbe.get().missingForDirectDescriptors());
        boss = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
        workers = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory(DIRECT));
        clients = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory(DIRECT));
    }

    @AfterAll
    static void stopLoops() throws InterruptedException {
        for (EventLoopGroup g : new EventLoopGroup[] {boss, workers, clients}) {
            if (g != null) {
                g.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        }
    }

    /** A counter summed over a group's loops, each read on its loop. */
    private static long sum(EventLoopGroup g, java.util.function.ToLongFunction<RingwireCounters> counter)
        throws Exception {
        long total = 0;
        for (EventExecutor loop : g) {
            total += loop.submit(() -> counter.applyAsLong(RingwireCounters.of(loop))).get();
        }
        return total;
    }

    private static void awaitSum(EventLoopGroup g, java.util.function.ToLongFunction<RingwireCounters> counter,
                                 long expected) throws Exception {
        for (int i = 0; i < 600 && sum(g, counter) != expected; i++) {
            Thread.sleep(50);
        }
        assertEquals(expected, sum(g, counter));
    }

    private static Channel echoServer(TrackingEcho echo) throws InterruptedException {
        return new ServerBootstrap().group(boss, workers).channel(RingwireServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024).childHandler(echo)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    /** A client that hands what it reads to {@code received}. */
    private static Bootstrap client(BlockingQueue<ByteBuf> received) {
        return client(received, clients);
    }

    /** A client on {@code group} that hands what it reads to {@code received}. */
    private static Bootstrap client(BlockingQueue<ByteBuf> received, EventLoopGroup group) {
        return new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    received.add((ByteBuf) msg);
                }
            });
    }

    private static byte[] take(BlockingQueue<ByteBuf> received, int n) throws InterruptedException {
        ByteBuf all = Unpooled.buffer(n);
        try {
            while (all.readableBytes() < n) {
                ByteBuf b = received.poll(30, TimeUnit.SECONDS);
                assertNotNull(b, "an answer within 30 s");
                all.writeBytes(b);
                b.release();
            }
            byte[] bytes = new byte[n];
            all.readBytes(bytes);
            return bytes;
        } finally {
            all.release();
        }
    }

    @Test
    void connectionsLiveInSlotsAndHoldNoFileDescriptor() throws Exception {
        final int n = 200;
        TrackingEcho echo = new TrackingEcho(n);
        Channel server = echoServer(echo);
        long fdsBefore = TrackingEcho.openFds();
        long movedBefore = sum(boss, RingwireCounters::msgRingTransfers);
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        List<Channel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                channels.add(client(received).connect(server.localAddress()).sync().channel());
            }
            assertTrue(echo.active.await(30, TimeUnit.SECONDS), "every connection accepted");
            assertEquals(fdsBefore, TrackingEcho.openFds(), n + " connections, both ends in this process, and no "
                + "descriptor more");
            awaitSum(workers, RingwireCounters::directDescriptors, n);
            assertEquals(n, sum(clients, RingwireCounters::directDescriptors));
            assertTrue(sum(boss, RingwireCounters::msgRingTransfers) - movedBefore >= n,
                "each accepted connection moved from the listener's loop to a worker's");
            for (int i = 0; i < n; i++) {
                byte[] m = ("message " + i).getBytes(StandardCharsets.US_ASCII);
                channels.get(i).writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
                assertArrayEquals(m, take(received, m.length), "connection " + i + " echoed");
            }
            Channel c = channels.get(0);
            assertTrue(((RingwireSocketChannel) c).fd().toString().contains("slot"), c.toString());
            assertEquals(Integer.MAX_VALUE, ((RingwireSocketChannel) c).fd().intValue(), "a direct descriptor has no fd");
        } finally {
            for (Channel c : channels) {
                c.close().sync();
            }
            server.close().sync();
        }
        awaitSum(workers, RingwireCounters::directDescriptors, 0);
        awaitSum(workers, RingwireCounters::fixedFiles, 0);
        awaitSum(boss, RingwireCounters::fixedFiles, 0);
        awaitSum(clients, RingwireCounters::fixedFiles, 0);
        assertEquals(0, echo.errors.get());
        assertEquals(fdsBefore - 1, TrackingEcho.openFdsBackTo(fdsBefore - 1), "only the listener's fd is gone");
    }

    @Test
    void optionsAndAddressesWithoutAFileDescriptor() throws Exception {
        TrackingEcho echo = new TrackingEcho(1);
        Channel server = echoServer(echo);
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        RingwireSocketChannel c = (RingwireSocketChannel) client(received)
            .option(ChannelOption.SO_RCVBUF, 65536).option(ChannelOption.SO_KEEPALIVE, true)
            .connect(server.localAddress()).sync().channel();
        try {
            assertTrue(echo.active.await(30, TimeUnit.SECONDS));
            RingwireSocketChannel accepted = (RingwireSocketChannel) echo.channels.get(0);
            assertTrue(c.config().isKeepAlive(), "an option set before the socket was made is on it");
            assertTrue(c.config().getReceiveBufferSize() >= 65536, "SO_RCVBUF set before connect");
            assertTrue(accepted.config().isTcpNoDelay(), "TCP_NODELAY, inherited from the listener");
            assertTrue(c.config().isTcpNoDelay(), "TCP_NODELAY, Netty's default");
            accepted.config().setTcpNoDelay(false);
            assertFalse(accepted.config().isTcpNoDelay());
            accepted.config().setKeepAlive(true);
            assertTrue(accepted.config().isKeepAlive());
            accepted.config().setSoLinger(3);
            assertEquals(3, accepted.config().getSoLinger());
            accepted.config().setSoLinger(-1);
            assertEquals(-1, accepted.config().getSoLinger());
            accepted.config().setTrafficClass(0x10);
            assertEquals(0x10, accepted.config().getTrafficClass());
            assertEquals(c.localAddress(), accepted.remoteAddress(), "the peer's address, from SO_PEERNAME");
            assertEquals(accepted.localAddress(), c.remoteAddress());
            assertEquals(server.localAddress(), c.remoteAddress());
            assertEquals(1, c.tcpInfo().state(), "TCP_INFO says ESTABLISHED");
            long installs = accepted.eventLoop().submit(() -> RingwireCounters.of(accepted.eventLoop())
                .fdInstalls()).get();
            assertTrue(installs > 0, "getsockname, TCP_NODELAY and TCP_INFO took an fd for the call");
            assertTrue(accepted.toString().contains("slot"), accepted.toString());
        } finally {
            c.close().sync();
            server.close().sync();
        }
    }

    @Test
    void aClientMadeInASlotNeverHoldsAnFd() throws Exception {
        TrackingEcho echo = new TrackingEcho(1);
        Channel server = echoServer(echo);
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        long fdsBefore = TrackingEcho.openFds();
        TestHooks.clientSocketsInSlots = true; // as with -Dringwire.directDescriptors
        RingwireSocketChannel c;
        try {
            c = (RingwireSocketChannel) client(received).option(ChannelOption.SO_KEEPALIVE, true).register().sync()
                .channel();
        } finally {
            TestHooks.clientSocketsInSlots = null;
        }
        try {
            assertEquals(fdsBefore, TrackingEcho.openFds(), "no fd, not even before it joined its loop");
            c.connect(server.localAddress(), new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 3}),
                0)).sync();
            assertTrue(echo.active.await(30, TimeUnit.SECONDS));
            assertTrue(c.config().isKeepAlive(), "an option set before the socket was made is on it");
            assertEquals(InetAddress.getByAddress(new byte[] {127, 0, 0, 3}), c.localAddress().getAddress(),
                "bound in its slot (BIND) to the address asked for");
            assertEquals(c.localAddress(), echo.channels.get(0).remoteAddress());
            byte[] m = "from a slot".getBytes(StandardCharsets.US_ASCII);
            c.writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
            assertArrayEquals(m, take(received, m.length));
            assertEquals(fdsBefore, TrackingEcho.openFds(), "and none while connected");
        } finally {
            c.close().sync();
            server.close().sync();
        }
    }

    /** @return a client channel whose socket will be made in its loop's table when it joins it (SOCKET) */
    private static RingwireSocketChannel clientMadeInASlot() {
        TestHooks.clientSocketsInSlots = true; // as with -Dringwire.directDescriptors
        try {
            RingwireSocketChannel c = new RingwireSocketChannel();
            assertTrue(c.isDirectDescriptor());
            return c;
        } finally {
            TestHooks.clientSocketsInSlots = null;
        }
    }

    /**
     * A value the kernel refuses (TCP_KEEPIDLE 0: EINVAL), set before a client's socket is made, fails the call with
     * a ChannelException naming the errno, as on a client with an fd, and is not kept for the socket.
     */
    @Test
    void aValueTheKernelRefusesBeforeTheSocketIsMadeFailsAsOnAnFd() throws Exception {
        RingwireSocketChannel withFd = new RingwireSocketChannel();
        RingwireSocketChannel inASlot = clientMadeInASlot();
        try {
            for (RingwireSocketChannel c : List.of(withFd, inASlot)) {
                ChannelException e = assertThrows(ChannelException.class,
                    () -> c.config().setOption(RingwireChannelOption.TCP_KEEPIDLE, 0), c::toString);
                assertTrue(e.getMessage().contains("EINVAL"), e.getMessage());
                assertTrue(c.config().getOption(RingwireChannelOption.TCP_KEEPIDLE) > 0, "the default stays");
            }
        } finally {
            withFd.unsafe().closeForcibly();
            inASlot.unsafe().closeForcibly();
        }
    }

    /**
     * A Bootstrap option the kernel refuses fails the connect of a client made in a slot as it fails a client's with
     * an fd: Netty 4.2's Bootstrap closes a channel whose option fails, with that ChannelException (it used to fail
     * later, at the registration, with the bare NativeIoException). With
     * {@code -Dio.netty.bootstrap.closeOnSetOptionFailure=false} Bootstrap only logs the refusal and goes on: done
     * by hand here, the client connects with the options the kernel took (it used to fail its registration).
     */
    @Test
    void aClientMadeInASlotFailsOrGoesOnAsAClientWithAnFdWhenTheKernelRefusesAnOption() throws Exception {
        TrackingEcho echo = new TrackingEcho(1);
        Channel server = echoServer(echo);
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        List<Throwable> failures = new ArrayList<>();
        for (boolean inASlot : new boolean[] {false, true}) {
            TestHooks.clientSocketsInSlots = inASlot;
            ChannelFuture connect;
            try {
                connect = client(received).option(RingwireChannelOption.TCP_KEEPIDLE, 0)
                    .connect(server.localAddress());
            } finally {
                TestHooks.clientSocketsInSlots = null;
            }
            assertTrue(connect.await(30, TimeUnit.SECONDS));
            failures.add(connect.cause());
            if (connect.channel().isRegistered()) {
                connect.channel().close().sync();
            }
        }
        assertInstanceOf(ChannelException.class, failures.get(0), "with an fd");
        assertInstanceOf(ChannelException.class, failures.get(1), "in a slot");
        assertEquals(failures.get(0).getMessage(), failures.get(1).getMessage());

        RingwireSocketChannel c = clientMadeInASlot();
        try {
            try {
                c.config().setOption(RingwireChannelOption.TCP_KEEPIDLE, 0);
            } catch (ChannelException e) {
                // what Bootstrap logs as a warning, and goes on
            }
            c.config().setOption(ChannelOption.SO_KEEPALIVE, true);
            c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    received.add((ByteBuf) msg);
                }
            });
            clients.next().register(c).sync();
            c.connect(server.localAddress()).sync();
            assertTrue(c.isDirectDescriptor());
            assertTrue(c.config().getOption(ChannelOption.SO_KEEPALIVE), "the option the kernel took is on");
            assertTrue(c.config().getOption(RingwireChannelOption.TCP_KEEPIDLE) > 0, "the refused one is not");
            byte[] m = "connected".getBytes(StandardCharsets.US_ASCII);
            c.writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
            assertArrayEquals(m, take(received, m.length));
        } finally {
            if (c.isRegistered()) {
                c.close().sync();
            } else {
                c.unsafe().closeForcibly();
            }
            server.close().sync();
        }
    }

    /**
     * Options set from the application's thread while the client joins its loop, where its socket is made and the
     * options set before are put on it: every one of them is on the socket afterwards, whichever side of the making
     * it fell on, and none fails.
     */
    @Test
    void optionsSetWhileAClientJoinsItsLoopAreAllOnItsSocket() throws Exception {
        for (int i = 0; i < 200; i++) {
            RingwireSocketChannel c = clientMadeInASlot();
            int idle = 100 + i;
            c.config().setOption(ChannelOption.SO_KEEPALIVE, true);
            ChannelFuture registered = clients.next().register(c);
            try {
                c.config().setOption(RingwireChannelOption.TCP_KEEPIDLE, idle);
                c.config().setOption(ChannelOption.SO_RCVBUF, 65536 + i);
                registered.sync();
                assertTrue(c.config().getOption(ChannelOption.SO_KEEPALIVE), "set before, channel " + i);
                assertEquals(idle, c.config().getOption(RingwireChannelOption.TCP_KEEPIDLE), "channel " + i);
                assertTrue(c.config().getOption(ChannelOption.SO_RCVBUF) >= 65536 + i, "channel " + i);
            } finally {
                registered.await(30, TimeUnit.SECONDS);
                c.close().sync();
            }
        }
    }

    /**
     * A channel whose registration fails after its loop's ring was closed (a loop shutting down while a connection
     * is handed to it) still closes, and flushes what it holds: the synchronous send on its slot must find the ring
     * gone and fail with EBADF, not write into the ring's unmapped memory.
     */
    @Test
    void aSynchronousCallAfterTheRingClosedFailsWithEbadf() {
        io.netty.util.concurrent.ThreadAwareExecutor here = new io.netty.util.concurrent.ThreadAwareExecutor() {
            @Override
            public boolean isExecutorThread(Thread thread) {
                return thread == Thread.currentThread();
            }

            @Override
            public void execute(Runnable task) {
                task.run();
            }
        };
        RingwireIoHandler h = (RingwireIoHandler) RingwireIoHandler.newFactory(RingwireIoHandlerConfig.builder()
            .directDescriptors(true).build()).newHandler(here);
        h.initialize();
        assertEquals(0, h.syncCalls().call(io.ringwire.uring.IoUringConstants.IORING_OP_NOP, (q, ud) -> q.prepNop(ud)));
        h.destroy();
        assertEquals(-io.ringwire.uring.Errno.EBADF, h.syncCalls().call(io.ringwire.uring.IoUringConstants.IORING_OP_NOP,
            (q, ud) -> q.prepNop(ud)));
    }

    /**
     * A burst of connections waiting to be accepted, each given options as it is (ServerBootstrap's child options, a
     * synchronous URING_CMD on its slot), on a loop whose completion queue (128) is smaller than the burst (500): a
     * synchronous call whose completion finds the queue full fails, and the connection it was for is closed (before,
     * 10 of the 500 became active). The listener accepts one at a time where the queue cannot hold a burst with two
     * calls per connection; a call made from a task while the queue is full (the option read back here, after every
     * client has written) takes the waiting completions out for the dispatch, to make room for its own.
     */
    @Test
    void anAcceptBurstWithChildOptionsLosesNoConnection() throws Exception {
        int n = 500;
        EventLoopGroup small = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().directDescriptors(true).ringEntries(64).cqEntries(128).build()));
        TrackingEcho echo = new TrackingEcho(n);
        List<Socket> sockets = new ArrayList<>();
        try {
            Channel server = new ServerBootstrap().group(small).channel(RingwireServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024).childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true).childHandler(echo)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            // suspended: every connection waits in the backlog, then one burst
            small.next().submit(() -> server.config().setAutoRead(false)).sync();
            for (int i = 0; i < n; i++) {
                sockets.add(new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress())
                    .getPort()));
            }
            small.next().submit(() -> server.config().setAutoRead(true)).sync();
            assertTrue(echo.active.await(60, TimeUnit.SECONDS), "all accepted and active: "
                + (n - echo.active.getCount()) + " of " + n);
            for (Socket s : sockets) {
                s.getOutputStream().write(7);
            }
            for (Socket s : sockets) {
                s.setSoTimeout(30_000);
                assertEquals(7, s.getInputStream().read(), "echoed");
            }
            assertEquals(n, echo.open.get(), "none closed");
            for (Channel c : echo.channels) {
                assertTrue(c.config().getOption(ChannelOption.TCP_NODELAY), "its child option is on");
            }
            server.close().sync();
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            small.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * Runs {@code call} on {@code loop} when both this and the other call of the pair are running, each on its loop;
     * the loop's thread goes in {@code threads[i]}.
     */
    private static CompletableFuture<Object> whenBothRun(EventLoop loop, CountDownLatch both, Thread[] threads, int i,
                                                         java.util.concurrent.Callable<Object> call) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        loop.execute(() -> {
            threads[i] = Thread.currentThread();
            both.countDown();
            try {
                assertTrue(both.await(30, TimeUnit.SECONDS), "both loops running");
                result.complete(call.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /** @return what {@code call} gave, or the ChannelException it threw */
    private static Object valueOrChannelException(java.util.concurrent.Callable<Object> call) throws Exception {
        try {
            return call.call();
        } catch (ChannelException e) {
            return e;
        }
    }

    /**
     * Two loops, each reading an option and the local address of a connection whose socket is in the other's table,
     * at the same time: neither waits for the other. (Each used to hand its call to the other loop and wait for it:
     * the two waited for each other for ever.) From another event loop, a call that needs the socket fails at once
     * with a ChannelException naming the channel's loop, and an address not known yet is null; from a thread that is
     * no event loop, the call runs on the channel's loop, and an address read there is known everywhere after.
     */
    @Test
    void twoLoopsReadingEachOthersConnectionsNeverWaitForEachOther() throws Exception {
        TrackingEcho echo = new TrackingEcho(2);
        Channel server = echoServer(echo);
        java.util.Iterator<EventExecutor> loops = clients.iterator();
        EventLoop a = (EventLoop) loops.next();
        EventLoop b = (EventLoop) loops.next();
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        Channel onA = client(received, a).connect(server.localAddress()).sync().channel();
        Channel onB = client(received, b).connect(server.localAddress()).sync().channel();
        Thread[] threads = new Thread[2];
        try {
            assertTrue(((AbstractRingwireChannel) onA).isDirectDescriptor()
                && ((AbstractRingwireChannel) onB).isDirectDescriptor());
            CountDownLatch both = new CountDownLatch(2);
            CompletableFuture<Object> fromA = whenBothRun(a, both, threads, 0, () -> List.of(
                valueOrChannelException(() -> onB.config().getOption(ChannelOption.SO_RCVBUF)),
                String.valueOf(onB.localAddress())));
            CompletableFuture<Object> fromB = whenBothRun(b, both, threads, 1, () -> List.of(
                valueOrChannelException(() -> onA.config().getOption(ChannelOption.SO_RCVBUF)),
                String.valueOf(onA.localAddress())));
            List<?> seenFromA;
            List<?> seenFromB;
            try {
                seenFromA = (List<?>) fromA.get(30, TimeUnit.SECONDS);
                seenFromB = (List<?>) fromB.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                for (Thread t : threads) {
                    t.interrupt(); // (a loop waiting for the other unblocks, failing its call)
                }
                for (EventLoop loop : List.of(a, b)) {
                    loop.submit(Thread::interrupted).await(30, TimeUnit.SECONDS); // (and keeps no interrupt after)
                }
                throw new AssertionError("the two loops waited for each other", e);
            }
            for (Object[] seen : new Object[][] {{seenFromA, onB}, {seenFromB, onA}}) {
                List<?> values = (List<?>) seen[0];
                Channel asked = (Channel) seen[1];
                ChannelException e = assertInstanceOf(ChannelException.class, values.get(0));
                assertTrue(e.getMessage().contains(asked.eventLoop().toString()), e.getMessage());
                assertEquals("null", values.get(1), "not read yet, and not readable from another loop");
            }
            for (Channel c : List.of(onA, onB)) {
                assertTrue(c.config().getOption(ChannelOption.SO_RCVBUF) > 0, "from a thread that is no loop");
                assertNotNull(c.localAddress());
            }
            assertEquals(onB.localAddress(), a.submit(() -> onB.localAddress()).get(30, TimeUnit.SECONDS),
                "read once, an address is known from any thread");
            byte[] m = "still echoing".getBytes(StandardCharsets.US_ASCII);
            onA.writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
            assertArrayEquals(m, take(received, m.length));
        } finally {
            onA.close().sync();
            onB.close().sync();
            server.close().sync();
        }
    }

    /**
     * A listener's loop with direct descriptors hands a connection to a worker loop without them: the socket leaves
     * the listener's table for an fd, which the listener's loop installs. The worker does not wait for that
     * meanwhile: here the listener's loop itself waits for a task of the worker's (it used to wait for ever, each
     * loop for the other), and the connection then echoes on its fd.
     */
    @Test
    void aConnectionLeavingATableForAnFdMakesNoLoopWaitForAnother() throws Exception {
        EventLoopGroup plain = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().directDescriptors(false).build()));
        EventLoop worker = (EventLoop) plain.next();
        CompletableFuture<Boolean> workerRanItsTask = new CompletableFuture<>();
        TrackingEcho echo = new TrackingEcho(1);
        try {
            Channel server = new ServerBootstrap().group(boss, plain).channel(RingwireServerSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.fireChannelRead(msg); // Netty's acceptor: registers it with the worker
                        try {
                            // the worker's next task, queued after that registration
                            workerRanItsTask.complete(worker.submit(() -> { }).await(30, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            workerRanItsTask.completeExceptionally(e);
                        }
                    }
                }).childHandler(echo).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
                .channel();
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                peer.setSoTimeout(30_000);
                assertTrue(workerRanItsTask.get(60, TimeUnit.SECONDS), "the worker's loop ran its next task while "
                    + "the listener's loop waited for it");
                assertTrue(echo.active.await(30, TimeUnit.SECONDS));
                RingwireSocketChannel accepted = (RingwireSocketChannel) echo.channels.get(0);
                assertFalse(accepted.isDirectDescriptor(), "an fd on a loop without direct descriptors");
                peer.getOutputStream().write(new byte[] {1, 2, 3});
                assertArrayEquals(new byte[] {1, 2, 3}, peer.getInputStream().readNBytes(3));
            } finally {
                server.close().sync();
            }
        } finally {
            plain.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A connection's socket, in loop A's table, passed over a Unix domain socket on loop B: the fd for the passing is
     * installed on A, while B goes on (it used to wait for A: here A waits for a task of B's once B has asked it,
     * and the two waited for each other for ever). The peer gets a descriptor of that connection's socket.
     */
    @Test
    void passingAConnectionOfAnotherLoopMakesNoLoopWaitForIt() throws Exception {
        java.util.Iterator<EventExecutor> loops = clients.iterator();
        EventLoop a = (EventLoop) loops.next();
        EventLoop b = (EventLoop) loops.next();
        TrackingEcho echo = new TrackingEcho(1);
        Channel tcpServer = echoServer(echo);
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("across.sock").toFile());
        CompletableFuture<Object> got = new CompletableFuture<>();
        Channel domainServer = new ServerBootstrap().group(boss, workers)
            .channel(RingwireServerDomainSocketChannel.class)
            .childOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    got.complete(msg);
                }
            }).bind(address).sync().channel();
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        Channel onA = client(received, a).connect(tcpServer.localAddress()).sync().channel();
        Channel onB = new Bootstrap().group(b).channel(RingwireDomainSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
        FileDescriptor passed = null;
        try {
            assertTrue(((AbstractRingwireChannel) onA).isDirectDescriptor());
            io.netty.util.concurrent.SingleThreadEventExecutor loopA = (io.netty.util.concurrent.SingleThreadEventExecutor) a;
            CompletableFuture<ChannelFuture> write = new CompletableFuture<>();
            boolean bRanItsTask = a.submit(() -> {
                write.complete(onB.writeAndFlush(((RingwireSocketChannel) onA).fd()));
                // B asks A for the fd (a task of A's) when it writes
                for (int i = 0; i < 3000 && loopA.pendingTasks() == 0; i++) {
                    Thread.sleep(10);
                }
                return b.submit(() -> { }).await(30, TimeUnit.SECONDS);
            }).get(60, TimeUnit.SECONDS);
            assertTrue(bRanItsTask, "B ran its next task while A waited for it");
            assertTrue(write.get().await(30, TimeUnit.SECONDS));
            assertTrue(write.get().isSuccess(), String.valueOf(write.get().cause()));
            passed = (FileDescriptor) got.get(30, TimeUnit.SECONDS);
            assertEquals(onA.localAddress(), io.ringwire.uring.Sockets.localAddress(passed.intValue()),
                "a descriptor of that connection's socket");
        } finally {
            if (passed != null) {
                passed.close();
            }
            onA.close().sync();
            onB.close().sync();
            domainServer.close().sync();
            tcpServer.close().sync();
        }
    }

    @Test
    void aConnectionMovesBetweenLoopsAndKeepsServing() throws Exception {
        TrackingEcho echo = new TrackingEcho(1);
        Channel server = echoServer(echo);
        BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
        Channel c = client(received).connect(server.localAddress()).sync().channel();
        try {
            assertTrue(echo.active.await(30, TimeUnit.SECONDS));
            Channel accepted = echo.channels.get(0);
            for (int hop = 0; hop < 10; hop++) {
                EventLoop from = accepted.eventLoop();
                EventLoop to = null;
                for (EventExecutor e : workers) {
                    if (e != from) {
                        to = (EventLoop) e;
                    }
                }
                long moved = from.submit(() -> RingwireCounters.of(from).msgRingTransfers()).get();
                accepted.deregister().sync();
                to.register(accepted).sync();
                assertEquals(to, accepted.eventLoop());
                assertEquals(moved + 1, from.submit(() -> RingwireCounters.of(from).msgRingTransfers()).get(),
                    "the slot went from one loop's table to the other's");
                byte[] m = ("hop " + hop).getBytes(StandardCharsets.US_ASCII);
                c.writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
                assertArrayEquals(m, take(received, m.length), "echoed after hop " + hop);
            }
        } finally {
            c.close().sync();
            server.close().sync();
        }
    }

    @Test
    void halvesShutDownAndTheConnectionCloses() throws Exception {
        CompletableFuture<Channel> child = new CompletableFuture<>();
        CompletableFuture<Void> inputShutdown = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    child.complete(ctx.channel());
                }

                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt instanceof ChannelInputShutdownEvent) {
                        inputShutdown.complete(null);
                    }
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            peer.setSoTimeout(30_000);
            RingwireSocketChannel accepted = (RingwireSocketChannel) child.get(30, TimeUnit.SECONDS);
            accepted.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})).sync();
            accepted.shutdownOutput().sync();
            InputStream in = peer.getInputStream();
            assertArrayEquals(new byte[] {1, 2, 3}, in.readNBytes(3));
            assertEquals(-1, in.read(), "the peer sees the end after the bytes");
            assertTrue(accepted.isOutputShutdown());
            peer.shutdownOutput();
            inputShutdown.get(30, TimeUnit.SECONDS);
            assertTrue(accepted.isInputShutdown());
            accepted.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aFileRegionGoesFromAMapping() throws Exception {
        byte[] content = new byte[3 * 1024 * 1024 + 17];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 13 + (i >>> 11));
        }
        Path file = Files.write(dir.resolve("region"), content);
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    child.complete(ctx.channel());
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            peer.setSoTimeout(30_000);
            Channel accepted = child.get(30, TimeUnit.SECONDS);
            long mappedBefore = accepted.eventLoop().submit(() -> RingwireCounters.of(accepted.eventLoop())
                .fileRegionMappedBytes()).get();
            accepted.writeAndFlush(new DefaultFileRegion(file.toFile(), 5, content.length - 5));
            byte[] got = peer.getInputStream().readNBytes(content.length - 5);
            assertArrayEquals(java.util.Arrays.copyOfRange(content, 5, content.length), got);
            RingwireCounters counters = RingwireCounters.of(accepted.eventLoop());
            assertEquals(content.length - 5, accepted.eventLoop().submit(() -> counters.fileRegionMappedBytes())
                .get() - mappedBefore, "sent from a mapping of the file: sendfile(2) takes an fd");
            accepted.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void descriptorsPassOverADirectDomainSocket() throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("pass.sock").toFile());
        Path file = Files.writeString(dir.resolve("passed"), "passed over a slot");
        CompletableFuture<Object> got = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(RingwireServerDomainSocketChannel.class)
            .childOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    got.complete(msg);
                }
            }).bind(address).sync().channel();
        Channel c = new Bootstrap().group(clients).channel(RingwireDomainSocketChannel.class)
            .handler(new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                }
            }).connect(address).sync().channel();
        int fd = Libc.open(file.toString(), 0x80000);
        try {
            assertTrue(((RingwireDomainSocketChannel) c).fd().toString().contains("slot"), c.toString());
            c.writeAndFlush(new DescriptorMessage.Received(fd)).sync();
            FileDescriptor passed = (FileDescriptor) got.get(30, TimeUnit.SECONDS);
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                java.lang.foreign.MemorySegment buf = arena.allocate(64);
                int n = Libc.read(passed.intValue(), buf, 64);
                assertEquals("passed over a slot", new String(buf.asSlice(0, Math.max(n, 0))
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII));
            } finally {
                passed.close();
            }
            assertEquals(ProcessHandle.current().pid(),
                ((RingwireDomainSocketChannel) c).peerCredentials().pid(), "SO_PEERCRED through URING_CMD");
        } finally {
            Libc.close(fd);
            c.close().sync();
            server.close().sync();
        }
    }

    @Test
    void aLingeringCloseStillClosesTheSocket() throws Exception {
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.SO_LINGER, 1)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    child.complete(ctx.channel());
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        long fdsBefore = TrackingEcho.openFds();
        try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            peer.setSoTimeout(30_000);
            Channel accepted = child.get(30, TimeUnit.SECONDS);
            accepted.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {9})).sync();
            accepted.close().sync();
            OutputStream unused = peer.getOutputStream();
            assertEquals(9, peer.getInputStream().read());
            assertEquals(-1, peer.getInputStream().read(), "closed, after lingering off the loop");
            assertNotNull(unused);
        } finally {
            server.close().sync();
        }
        assertEquals(fdsBefore - 1, TrackingEcho.openFdsBackTo(fdsBefore - 1), "the fd made to linger is closed");
    }
}
