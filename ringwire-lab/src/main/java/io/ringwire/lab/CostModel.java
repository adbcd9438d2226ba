package io.ringwire.lab;

import io.ringwire.uring.CompletionHandler;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;

import static io.ringwire.uring.SocketConstants.AF_INET;
import static io.ringwire.uring.SocketConstants.IPPROTO_TCP;
import static io.ringwire.uring.SocketConstants.SOCK_CLOEXEC;
import static io.ringwire.uring.SocketConstants.SOCK_NONBLOCK;
import static io.ringwire.uring.SocketConstants.SOCK_STREAM;
import static io.ringwire.uring.SocketConstants.TCP_NODELAY;

/**
 * Seed 002's cost model, measured on this machine: epoll pays {@code s + w} per send or receive, io_uring pays
 * {@code (t + s) / n} in the seed's words, where s is the user/kernel switch, w the kernel's send/recv work, t
 * io_uring's cost per operation at batch 1 (work included) and n the operations per {@code io_uring_enter}.
 *
 * <p>Everything here goes through the same FFM downcall as the transport, on a loopback TCP connection, timed with a
 * {@link System#nanoTime()} pair around each system call (the pair's own cost is measured and taken off):
 * <ul>
 *   <li>s: {@code getppid(2)}, the cheapest system call;</li>
 *   <li>w: {@code write(2)} and {@code read(2)} of {@code size} bytes, minus s;</li>
 *   <li>t: one {@code io_uring_enter} carrying one SEND (and, separately, one RECV of bytes already there),
 *   minus s;</li>
 *   <li>the per-operation cost at batch n: one enter carrying n SENDs, divided by n.</li>
 * </ul>
 * The seed's formula divides t by n as well; t contains the kernel's send work, which no batch shares, so the lab
 * prints both the seed's {@code (t + s) / n} and the per-operation reading {@code s / n + t}.
 */
final class CostModel {
    /** Batches measured. */
    static final int[] BATCHES = {1, 2, 4, 8, 16, 32, 64};
    private static final long SYS_GETPPID = 110; // x86_64

    /**
     * What was measured, nanoseconds.
     *
     * @param s          user/kernel switch
     * @param w          kernel work of one send or receive
     * @param t          io_uring's cost per operation at batch 1
     * @param perOpAtN   measured cost per SEND at each of {@link #BATCHES}
     * @param size       bytes per send/recv
     */
    record Costs(double s, double w, double t, double[] perOpAtN, int size) {
        /** @return epoll's cost per operation */
        double epoll() {
            return s + w;
        }

        /** @return the seed's io_uring cost per operation at batch n */
        double seedModel(double n) {
            return (t + s) / n;
        }

        /** @return the per-operation reading: only the switch is shared by a batch */
        double perOpModel(double n) {
            return s / n + t;
        }

        /** @return the table, one line per batch */
        String table() {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "s = %.0f ns (switch), w = %.0f ns (send/recv work, %d B), t = %.0f ns (io_uring per op at batch 1); "
                    + "epoll s + w = %.0f ns%n", s, w, size, t, epoll()));
            b.append(String.format(Locale.ROOT, "%6s %16s %16s %16s %14s%n", "n", "seed (t+s)/n", "s/n + t",
                "measured/op", "measured/epoll"));
            for (int i = 0; i < BATCHES.length; i++) {
                int n = BATCHES[i];
                b.append(String.format(Locale.ROOT, "%6d %13.0f ns %13.0f ns %13.0f ns %14.2f%n", n, seedModel(n),
                    perOpModel(n), perOpAtN[i], perOpAtN[i] / epoll()));
            }
            return b.toString();
        }
    }

    /**
     * The model against an observed echo run of Ringwire and netty-epoll.
     *
     * @param costs               s, w, t and the batch curve
     * @param batches             the n of each {@code costs.perOpAtN} entry
     * @param echoVariant         the echo run it is compared with (empty when none ran)
     * @param observedN           SQEs per io_uring_enter in Ringwire's counters during that run
     * @param measuredRatio       Ringwire's server CPU per message over netty-epoll's
     * @param seedPredictedRatio  {@code ((t + s) / n) / (s + w)}
     * @param perOpPredictedRatio {@code (s / n + t) / (s + w)}
     */
    record Report(Costs costs, int[] batches, String echoVariant, double observedN, double measuredRatio,
                  double seedPredictedRatio, double perOpPredictedRatio) {
        /**
         * @param costs what was measured
         * @param echo  the echo summary with ringwire and netty-epoll rows, or null
         * @return the model next to the observation
         */
        static Report of(Costs costs, Summary echo) {
            Summary.Row rw = echo == null ? null : echo.row(Competitor.RINGWIRE.label());
            Summary.Row ep = echo == null ? null : echo.row(Competitor.NETTY_EPOLL.label());
            double n = rw == null ? Double.NaN : rw.sqesPerEnter();
            double measured = rw == null || ep == null ? Double.NaN : rw.cpuUsPerMsg() / ep.cpuUsPerMsg();
            return new Report(costs, BATCHES.clone(), echo == null ? "" : echo.variant(), n, measured,
                costs.seedModel(n) / costs.epoll(), costs.perOpModel(n) / costs.epoll());
        }

        /** @return the terminal text */
        String text() {
            StringBuilder b = new StringBuilder("== cost-model (seed 002) ==\n").append(costs.table());
            if (!Double.isNaN(observedN)) {
                b.append(String.format(Locale.ROOT, "echo %s: Ringwire submitted n = %.2f SQEs per enter; "
                    + "predicted io_uring/epoll cost %.2f (seed's formula) or %.2f (per operation); measured server "
                    + "CPU per message ringwire/netty-epoll = %.2f%n", echoVariant, observedN, seedPredictedRatio,
                    perOpPredictedRatio, measuredRatio));
                b.append("(Ringwire's receives are multishot: they cost no SQE and no enter of their own, which the "
                    + "model, written for one SQE per send and per recv, does not know.)\n");
            }
            return b.toString();
        }
    }

    private CostModel() { }

    /**
     * @param size       bytes per send/recv (the echo message size)
     * @param iterations timed calls per figure (a tenth as many untimed first)
     * @return s, w, t and the batch curve
     * @throws IOException if the loopback connection or the ring cannot be set up
     */
    static Costs measure(int size, int iterations) throws IOException {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.builder().entries(128).build()) {
            int[] fds = loopbackPair(arena);
            try {
                MemorySegment capture = Libc.newErrnoCapture();
                MemorySegment buf = arena.allocate(Math.max(size, 1) * 64L);
                double clock = timeClock(iterations);
                double s = timeGetppid(capture, iterations) - clock;
                double w = timeWriteRead(fds, buf, size, iterations) - clock - s;
                double tSend = timeRingSends(ring, fds, buf, size, 1, iterations) - clock / 1 - s;
                double tRecv = timeRingRecv(ring, fds, buf, size, iterations) - clock - s;
                double[] perOp = new double[BATCHES.length];
                for (int i = 0; i < BATCHES.length; i++) {
                    int n = BATCHES[i];
                    perOp[i] = timeRingSends(ring, fds, buf, size, n, Math.max(1000, iterations / n)) - clock / n;
                }
                return new Costs(s, w, (tSend + tRecv) / 2, perOp, size);
            } finally {
                Libc.close(fds[0]);
                Libc.close(fds[1]);
            }
        }
    }

    private static double timeClock(int iterations) {
        long sink = 0;
        long total = 0;
        for (int i = 0; i < iterations + iterations / 10; i++) {
            long a = System.nanoTime();
            long b = System.nanoTime();
            sink += a;
            if (i >= iterations / 10) {
                total += b - a;
            }
        }
        return sink == 42 ? 0 : (double) total / iterations;
    }

    private static double timeGetppid(MemorySegment capture, int iterations) {
        long total = 0;
        for (int i = 0; i < iterations + iterations / 10; i++) {
            long a = System.nanoTime();
            Libc.syscall(capture, SYS_GETPPID, 0, 0, 0, 0, 0, 0);
            long b = System.nanoTime();
            if (i >= iterations / 10) {
                total += b - a;
            }
        }
        return (double) total / iterations;
    }

    /** @return mean ns of one write(2) or read(2) */
    private static double timeWriteRead(int[] fds, MemorySegment buf, int size, int iterations) throws IOException {
        long total = 0;
        for (int i = 0; i < iterations + iterations / 10; i++) {
            long a = System.nanoTime();
            check(Libc.write(fds[0], buf, size), "write");
            long b = System.nanoTime();
            readFully(fds[1], buf, size);
            long c = System.nanoTime();
            if (i >= iterations / 10) {
                total += (b - a) + (c - b);
            }
        }
        return total / (2.0 * iterations);
    }

    /** @return mean ns per SEND when {@code n} SENDs share one enter */
    private static double timeRingSends(IoUring ring, int[] fds, MemorySegment buf, int size, int n, int enters)
        throws IOException {
        long total = 0;
        int[] done = {0};
        CompletionHandler count = (userData, res, flags) -> done[0]++;
        for (int i = 0; i < enters + enters / 10; i++) {
            for (int k = 0; k < n; k++) {
                ring.sq().prepSend(fds[0], buf.address(), size, 0, k);
            }
            done[0] = 0;
            long a = System.nanoTime();
            int r = ring.submitAndWait(n, -1);
            long b = System.nanoTime();
            check(r, "io_uring_enter");
            while (done[0] < n) {
                ring.cq().drain(count, 256);
            }
            readFully(fds[1], buf, size * n);
            if (i >= enters / 10) {
                total += b - a;
            }
        }
        return (double) total / enters / n;
    }

    /** @return mean ns of one enter carrying one RECV whose bytes are already there */
    private static double timeRingRecv(IoUring ring, int[] fds, MemorySegment buf, int size, int iterations)
        throws IOException {
        long total = 0;
        int[] got = {0};
        CompletionHandler result = (userData, res, flags) -> got[0] = res;
        for (int i = 0; i < iterations + iterations / 10; i++) {
            check(Libc.write(fds[0], buf, size), "write");
            ring.sq().prepRecv(fds[1], buf.address(), size, 0, 7);
            long a = System.nanoTime();
            int r = ring.submitAndWait(1, -1);
            long b = System.nanoTime();
            check(r, "io_uring_enter");
            got[0] = Integer.MIN_VALUE;
            while (got[0] == Integer.MIN_VALUE) {
                ring.cq().drain(result, 16);
            }
            check(got[0], "recv");
            if (got[0] < size) {
                readFully(fds[1], buf, size - got[0]);
            }
            if (i >= iterations / 10) {
                total += b - a;
            }
        }
        return (double) total / iterations;
    }

    private static void readFully(int fd, MemorySegment buf, int size) throws IOException {
        int got = 0;
        while (got < size) {
            int r = Libc.read(fd, buf, Math.min(size - got, (int) buf.byteSize()));
            if (r == -11) { // EAGAIN: not yet delivered on this loopback connection
                Thread.onSpinWait();
                continue;
            }
            check(r, "read");
            got += r;
        }
    }

    private static void check(int result, String what) throws IOException {
        if (result < 0) {
            throw new NativeIoException(what, result);
        }
    }

    /** @return {client fd, server fd}: a loopback TCP connection, both non-blocking */
    private static int[] loopbackPair(Arena arena) throws IOException {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        int listener = Sockets.open(AF_INET, SOCK_STREAM);
        try {
            Sockets.bind(listener, any);
            Sockets.listen(listener, 1);
            InetSocketAddress bound = (InetSocketAddress) Sockets.localAddress(listener);
            int client = Sockets.open(AF_INET, SOCK_STREAM);
            MemorySegment addr = arena.allocate(SockAddr.STORAGE_SIZE);
            int len = SockAddr.write(bound, addr, false);
            int r = Libc.connect(client, addr, len);
            if (r < 0 && r != -115) { // EINPROGRESS: completes below
                Libc.close(client);
                throw new NativeIoException("connect", r);
            }
            int server = -1;
            for (int tries = 0; server < 0 && tries < 1000; tries++) {
                server = Libc.accept4(listener, MemorySegment.NULL, MemorySegment.NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (server < 0) {
                    sleepMillis(1);
                }
            }
            if (server < 0) {
                Libc.close(client);
                throw new IOException("loopback connection for the cost model was not accepted");
            }
            sleepMillis(10); // the client's connect completes with the handshake
            try {
                // every send goes out at once, as on the transport's sockets: Nagle would fold a batch into one
                Sockets.setInt(client, IPPROTO_TCP, TCP_NODELAY, 1);
                Sockets.setInt(server, IPPROTO_TCP, TCP_NODELAY, 1);
            } catch (NativeIoException e) {
                Libc.close(client);
                Libc.close(server);
                throw e;
            }
            return new int[] {client, server};
        } finally {
            Libc.close(listener);
        }
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
