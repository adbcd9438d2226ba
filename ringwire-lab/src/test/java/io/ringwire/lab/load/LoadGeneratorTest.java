package io.ringwire.lab.load;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Both load-generator engines against small in-process servers: every byte is checked (a server that corrupts one
 * byte is caught), closed loop, finite streams, open loop and a large window all complete, and a server that hangs up
 * is counted as an error instead of stalling the run. Nothing here judges speed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoadGeneratorTest {
    private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeServers() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /**
     * A thread-per-connection server on loopback that returns every byte it reads after passing it through
     * {@code transform} (byte offset in the connection → what to add to that byte), or hangs up after
     * {@code hangUpAfter} bytes.
     */
    private InetSocketAddress server(IntUnaryOperator transform, long hangUpAfter) throws IOException {
        return server(transform, hangUpAfter, Long.MAX_VALUE);
    }

    /** ... and stops answering (reading on, the connection open) once it has read {@code silentAfter} bytes. */
    private InetSocketAddress server(IntUnaryOperator transform, long hangUpAfter, long silentAfter)
        throws IOException {
        ServerSocket ss = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        toClose.add(ss);
        Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    toClose.add(s);
                    Thread.ofPlatform().daemon().start(() -> echo(s, transform, hangUpAfter, silentAfter));
                } catch (IOException e) {
                    return;
                }
            }
        });
        toClose.add(acceptor::interrupt);
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
    }

    private static void echo(Socket s, IntUnaryOperator transform, long hangUpAfter, long silentAfter) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            byte[] buf = new byte[64 * 1024];
            long offset = 0;
            for (int n; (n = in.read(buf)) > 0; ) {
                for (int i = 0; i < n; i++) {
                    buf[i] += (byte) transform.applyAsInt((int) (offset + i));
                }
                offset += n;
                if (offset > hangUpAfter) {
                    return;
                }
                if (offset <= silentAfter) {
                    out.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // the generator closed the connection at the end of its run
        }
    }

    private static InetSocketAddress echoServer(LoadGeneratorTest t) throws IOException {
        return t.server(i -> 0, Long.MAX_VALUE);
    }

    private static LoadGenerator.Result run(InetSocketAddress target, LoadGenerator.Config config,
                                            LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        return new LoadGenerator(target, config, engine).run(() -> true, 0.5, () -> { });
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void closedLoopEchoIsCheckedAndClean(LoadGenerator.Engine engine) throws IOException {
        LoadGenerator.Result r = run(echoServer(this), LoadGenerator.Config.closed(20, 200, 4), engine);
        assertEquals(0, r.mismatches(), r::toString);
        assertEquals(0, r.errors(), r::toString);
        assertTrue(r.messages() > 0, r::toString);
        assertTrue(r.cpuSeconds() > 0, r::toString);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void finiteStreamsComplete(LoadGenerator.Engine engine) throws IOException {
        LoadGenerator.Result r = run(echoServer(this), new LoadGenerator.Config(4, 128, 50, 8, 0, 1, 1), engine);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        assertTrue(r.streams() > 0, r::toString);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void openLoopKeepsItsSchedule(LoadGenerator.Engine engine) throws IOException {
        LoadGenerator.Result r = run(echoServer(this), new LoadGenerator.Config(10, 128, 1, 0, 2000, 3, 2), engine);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        // the schedule, not the machine's speed, decides what was sent: 2000/s for 0.5 s, in batches of 2
        assertEquals(1000, r.sent(), 2, r::toString);
        assertTrue(r.sendLagNanos().getTotalCount() > 0, r::toString);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void openLoopSendsOnWhileTheWindowOpens(LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        AtomicLong bytesRead = new AtomicLong();
        InetSocketAddress target = server(i -> {
            bytesRead.incrementAndGet();
            return 0;
        }, Long.MAX_VALUE);
        List<String> edges = new CopyOnWriteArrayList<>();
        AtomicBoolean sentWhileOpening = new AtomicBoolean();
        AtomicLong openedAt = new AtomicLong();
        AtomicLong closingAt = new AtomicLong();
        // the opening edge waits for 20 more messages to reach the server: only a generator that sends on while the
        // edge runs lets it return before its (liveness) deadline
        Runnable onWindow = () -> {
            if (edges.isEmpty()) {
                edges.add("opening");
                long target20 = bytesRead.get() + 20 * 128;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (bytesRead.get() < target20 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                sentWhileOpening.set(bytesRead.get() >= target20);
                edges.add("opened");
                openedAt.set(System.nanoTime());
            } else {
                closingAt.set(System.nanoTime());
                edges.add("closing");
            }
        };
        LoadGenerator.Result r = new LoadGenerator(target, new LoadGenerator.Config(10, 128, 1, 0, 2000, 3, 2), engine)
            .run(() -> true, 0.5, onWindow);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        assertTrue(sentWhileOpening.get(), "the open loop held its sends while the window's opening edge ran");
        assertEquals(List.of("opening", "opened", "closing"), edges, "the closing edge waits for the opening one");
        // what the edges read (the server's CPU, its statistics) must span the whole window: it opens once the
        // opening edge has returned, so the closing edge comes at least the window's length after
        assertTrue(closingAt.get() - openedAt.get() >= 500_000_000L,
            "the window opened before its opening edge had returned");
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void largeWindowOnOneConnection(LoadGenerator.Engine engine) throws IOException {
        // 4 MiB in flight: short sends and answers spread over many receive buffers
        LoadGenerator.Result r = run(echoServer(this), LoadGenerator.Config.closed(1, 1024, 4096), engine);
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        assertTrue(r.messages() > 0, r::toString);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void aCorruptedByteIsCaught(LoadGenerator.Engine engine) throws IOException {
        // one byte in every 1,000 is off by one: the first answer of each connection already carries one
        InetSocketAddress target = server(i -> i % 1_000 == 999 ? 1 : 0, Long.MAX_VALUE);
        LoadGenerator.Result r = run(target, LoadGenerator.Config.closed(4, 1000, 8), engine);
        assertTrue(r.mismatches() > 0, r::toString);
        assertEquals(0, r.errors(), r::toString);
    }

    /**
     * Beyond the open-file limit the io_uring generator holds its connections in direct descriptors, spread over
     * rings (a ring's table holds at most the limit): here 30 connections, 8 to a ring (four rings), from three
     * source addresses (each socket made, bound and connected in its slot), in the closed loop and the open one;
     * checked as ever, and the generator's process holds no fd for them.
     */
    @org.junit.jupiter.api.Test
    void connectionsInDirectDescriptorsOverSeveralRings() throws IOException {
        assumeTrue(LoadGenerator.Engine.best() == LoadGenerator.Engine.IO_URING && LoadGenerator.directAvailable(),
            "this kernel lacks what direct descriptors need");
        InetSocketAddress target = echoServer(this);
        long[] fdsDuring = {-1, -1};
        long[] fdsBefore = openFds();
        LoadGenerator.Result closed = new LoadGenerator(target, LoadGenerator.Config.closed(30, 200, 2),
            LoadGenerator.Engine.IO_URING).directDescriptors(8).connsPerSource(10)
            .run(() -> true, 0.3, () -> {
                long[] now = openFds();
                fdsDuring[0] = Math.max(fdsDuring[0], now[0]);
                fdsDuring[1] = Math.max(fdsDuring[1], now[1]);
            });
        assertEquals(0, closed.mismatches() + closed.errors(), closed::toString);
        assertTrue(closed.messages() > 0, closed::toString);
        // four rings and their eventfd, not one fd per connection; of sockets, at most the test server's 30 ends
        assertTrue(fdsDuring[0] - fdsBefore[0] <= 5, "no fd per connection: " + fdsBefore[0] + " -> " + fdsDuring[0]);
        assertTrue(fdsDuring[1] - fdsBefore[1] <= 30, "no socket fd per connection (the server's 30 ends at most): "
            + fdsBefore[1] + " -> " + fdsDuring[1]);
        LoadGenerator.Result open = new LoadGenerator(target, new LoadGenerator.Config(30, 64, 1, 0, 600, 1, 1),
            LoadGenerator.Engine.IO_URING).directDescriptors(8).connsPerSource(10).run(() -> true, 0.3, () -> { });
        assertEquals(0, open.mismatches() + open.errors(), open::toString);
        assertTrue(open.messages() > 0, open::toString);
    }

    /**
     * @return this process's open descriptors but its sockets, and its sockets: counted apart, because the test
     *         server's acceptor may not yet have recorded a connection the kernel has accepted for it, so its sockets
     *         cannot be subtracted exactly; the generator's own sockets would show as sockets beyond the server's
     */
    private static long[] openFds() {
        long[] n = new long[2];
        try (java.util.stream.Stream<java.nio.file.Path> fds = java.nio.file.Files.list(
            java.nio.file.Path.of("/proc/self/fd"))) {
            fds.forEach(f -> {
                try {
                    n[java.nio.file.Files.readSymbolicLink(f).toString().startsWith("socket:") ? 1 : 0]++;
                } catch (IOException gone) {
                    // closed since it was listed (the directory's own descriptor, say)
                }
            });
            return n;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void manyConnectionsComeFromSeveralLoopbackAddresses(LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        InetSocketAddress target = echoServer(this);
        // the conns workload's spreading, at 10 per address instead of thousands
        LoadGenerator.Result r = new LoadGenerator(target, new LoadGenerator.Config(30, 64, 1, 0, 300, 1, 1), engine)
            .connsPerSource(10).run(() -> true, 0.3, () -> { });
        assertEquals(0, r.mismatches() + r.errors(), r::toString);
        assertTrue(r.connectSeconds() > 0, r::toString);
        // a connect completes with the kernel's handshake: the test server's accept thread may still be taking the
        // last ones from its backlog (a slow machine), so wait for all 30 before reading their addresses
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (toClose.stream().filter(Socket.class::isInstance).count() < 30 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        }
        java.util.Map<String, Integer> peers = new java.util.TreeMap<>();
        for (AutoCloseable c : toClose) {
            if (c instanceof Socket s) {
                peers.merge(s.getInetAddress().getHostAddress(), 1, Integer::sum);
            }
        }
        assertEquals(java.util.Map.of("127.0.0.1", 10, "127.0.0.2", 10, "127.0.0.3", 10), peers);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void aServerThatStopsAnsweringIsAnErrorNotASlowRun(LoadGenerator.Engine engine) throws IOException {
        // reads everything, answers nothing, keeps the connections open: every connection's first messages wait
        // through the whole window
        InetSocketAddress target = server(i -> 0, Long.MAX_VALUE, 0);
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        // it waits 0.2 s (not 30) for every connection's first answer before it runs at its full window
        // it waits 0.2 s (not 10) after the window for answers that could still make them starved, not lost
        LoadGenerator.Result r = new LoadGenerator(target, LoadGenerator.Config.closed(3, 128, 2), engine)
            .primingLimit(0.2).starvedGrace(0.2).run(() -> true, 0.5, () -> { });
        assertEquals(3, r.errors(), r::toString);
        assertEquals(0, r.starved(), r::toString);
        assertEquals(0, r.messages(), r::toString);
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void aConnectionAnsweredOnlyAfterTheWindowIsStarvedNotLost(LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        // one connection's echo thread holds what it reads after its first frame until the window's closing edge
        // (a thread-per-connection server that leaves one thread unscheduled): that connection's second frame,
        // sent before the window opened, is answered only after the window closed; the other two run throughout
        CountDownLatch windowClosed = new CountDownLatch(1);
        AtomicBoolean held = new AtomicBoolean();
        ServerSocket ss = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        toClose.add(ss);
        Thread.ofPlatform().daemon().start(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    toClose.add(s);
                    Thread.ofPlatform().daemon().start(() -> echoHolding(s, held, windowClosed));
                } catch (IOException e) {
                    return;
                }
            }
        });
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
        int[] edges = {0};
        LoadGenerator.Result r = new LoadGenerator(target, LoadGenerator.Config.closed(3, 128, 1), engine)
            .run(() -> true, 0.5, () -> {
                if (edges[0]++ == 1) {
                    windowClosed.countDown();
                }
            });
        assertTrue(held.get(), "no connection was held");
        assertEquals(1, r.starved(), r::toString);
        assertEquals(0, r.errors() + r.mismatches(), r::toString);
        assertTrue(r.messages() > 0, r::toString);
        // its wait is in the latencies: at least the window, though answered after it
        assertTrue(r.latencyNanos().getMaxValue() >= 500_000_000L, () -> "max " + r.latencyNanos().getMaxValue());
    }

    private static void echoHolding(Socket s, AtomicBoolean held, CountDownLatch release) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            byte[] buf = new byte[64 * 1024];
            long offset = 0;
            boolean holding = false;
            for (int n; (n = in.read(buf)) > 0; ) {
                offset += n;
                if (offset > 128 && !holding && held.compareAndSet(false, true)) {
                    holding = true;
                    release.await();
                }
                out.write(buf, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // the generator closed the connection at the end of its run
        }
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void aServerThatHangsUpIsAnErrorNotAStall(LoadGenerator.Engine engine) throws IOException {
        InetSocketAddress target = server(i -> 0, 0); // hangs up on the first bytes, without answering
        LoadGenerator.Result r = run(target, LoadGenerator.Config.closed(3, 128, 2), engine);
        assertEquals(3, r.errors(), r::toString);
    }
}
