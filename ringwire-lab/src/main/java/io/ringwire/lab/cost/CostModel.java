package io.ringwire.lab.cost;

import io.ringwire.lab.results.Sources;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static io.ringwire.uring.SocketConstants.AF_INET;
import static io.ringwire.uring.SocketConstants.IPPROTO_TCP;
import static io.ringwire.uring.SocketConstants.SOCK_CLOEXEC;
import static io.ringwire.uring.SocketConstants.SOCK_NONBLOCK;
import static io.ringwire.uring.SocketConstants.SOCK_STREAM;
import static io.ringwire.uring.SocketConstants.TCP_NODELAY;

/**
 * The OpenAnolis cost model ({@link Sources#COST_MODEL_CITED}), measured on this machine: epoll pays {@code s + w}
 * per send or receive, io_uring pays {@code (t + s) / n} in the model's words, where s is the user/kernel switch, w
 * the kernel's send/recv work, t io_uring's cost per operation at batch 1 (work included) and n the operations per
 * {@code io_uring_enter}.
 *
 * <p>Everything here goes through the same FFM downcall as the transport, on a loopback TCP connection, timed with a
 * {@link System#nanoTime()} pair around each system call (the pair's own cost is measured and taken off), and
 * summarised by medians over several rounds, so that a preempted call or a busy moment on a shared machine moves a
 * figure little; a figure that still comes out implausible is reported as "too noisy to tell", never as a negative
 * cost:
 * <ul>
 *   <li>s: {@code getppid(2)}, the cheapest system call;</li>
 *   <li>w: {@code write(2)} and {@code read(2)} of {@code size} bytes, minus s;</li>
 *   <li>t: one {@code io_uring_enter} carrying one SEND (and, separately, one RECV of bytes already there),
 *   minus s;</li>
 *   <li>the per-operation cost at batch n: one enter carrying n SENDs, divided by n.</li>
 * </ul>
 * The model's formula divides t by n as well; t contains the kernel's send work, which no batch shares, so the lab
 * prints both the model's {@code (t + s) / n} and the per-operation reading {@code s / n + t}.
 */
public final class CostModel {
    /** Batches measured. */
    public static final int[] BATCHES = {1, 2, 4, 8, 16, 32, 64};
    private static final long SYS_GETPPID = 110; // x86_64

    /**
     * What was measured, nanoseconds. A figure the machine was too noisy to tell is NaN, and {@code caveats} says
     * which and why: a negative cost is never reported.
     *
     * @param s          user/kernel switch
     * @param w          kernel work of one send or receive
     * @param t          io_uring's cost per operation at batch 1
     * @param perOpAtN   measured cost per SEND at each of {@link #BATCHES}
     * @param size       bytes per send/recv
     * @param caveats    figures left out or to be read with care, one sentence each
     */
    public record Costs(double s, double w, double t, double[] perOpAtN, int size, List<String> caveats) {
        public Costs {
            caveats = List.copyOf(caveats);
        }

        /** Figures without caveats. */
        public Costs(double s, double w, double t, double[] perOpAtN, int size) {
            this(s, w, t, perOpAtN, size, List.of());
        }

        /**
         * Works s, w, t and the batch curve out of the raw medians, with the plausibility checks: each cost must be
         * positive, a switch must cost less than {@link #MAX_PLAUSIBLE_SWITCH_NS}, and a figure whose rounds spread
         * more than {@link #NOISY_SPREAD} around their median is flagged.
         *
         * @param raw  medians of the timed calls
         * @param size bytes per send/recv
         * @return the costs, NaN where the machine was too noisy to tell
         */
        static Costs derive(Raw raw, int size) {
            List<String> caveats = new ArrayList<>();
            double s = plausible("s", raw.getppid() - raw.clock(), caveats,
                "getppid took no longer than reading the clock");
            if (s > MAX_PLAUSIBLE_SWITCH_NS) {
                caveats.add(String.format(Locale.ROOT, "s: too noisy to tell (getppid took %.0f ns, more than the "
                    + "%.0f ns any machine needs for a system call: the CPU was shared)", s, MAX_PLAUSIBLE_SWITCH_NS));
                s = Double.NaN;
            }
            double w = plausible("w", (raw.write() + raw.read()) / 2 - raw.clock() - s, caveats,
                "write/read took no longer than getppid");
            double t = plausible("t", (raw.ringSend() + raw.ringRecv()) / 2 - raw.clock() - s, caveats,
                "one enter with one operation took no longer than getppid");
            double[] perOp = new double[BATCHES.length];
            for (int i = 0; i < BATCHES.length; i++) {
                perOp[i] = plausible("cost per SEND at n = " + BATCHES[i], raw.perOpAtN()[i]
                    - raw.clock() / BATCHES[i], caveats, "no longer than reading the clock");
            }
            String[] names = {"clock", "getppid", "write", "read", "io_uring SEND", "io_uring RECV"};
            for (int i = 0; i < names.length; i++) {
                if (raw.spread()[i] > NOISY_SPREAD) {
                    caveats.add(String.format(Locale.ROOT, "%s varied %.0f %% across rounds: the machine was busy, "
                        + "read the figures with care", names[i], 100 * raw.spread()[i]));
                }
            }
            return new Costs(s, w, t, perOp, size, caveats);
        }

        private static double plausible(String name, double value, List<String> caveats, String why) {
            if (Double.isNaN(value)) {
                caveats.add(name + ": too noisy to tell (it depends on a figure that is)");
                return Double.NaN;
            }
            if (value <= 0) {
                caveats.add(String.format(Locale.ROOT, "%s: too noisy to tell (%s; %.0f ns)", name, why, value));
                return Double.NaN;
            }
            return value;
        }

        /** @return epoll's cost per operation */
        public double epoll() {
            return s + w;
        }

        /** @return the model's io_uring cost per operation at batch n, {@code (t + s) / n} */
        public double seedModel(double n) {
            return (t + s) / n;
        }

        /** @return the per-operation reading: only the switch is shared by a batch */
        public double perOpModel(double n) {
            return s / n + t;
        }

        /** @return the table, one line per batch, then one line per caveat */
        public String table() {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "s = %s (switch), w = %s (send/recv work, %d B), t = %s (io_uring per op at batch 1); "
                    + "epoll s + w = %s%n", ns(s), ns(w), size, ns(t), ns(epoll())));
            b.append(String.format(Locale.ROOT, "%6s %16s %16s %16s %14s%n", "n", "model (t+s)/n", "s/n + t",
                "measured/op", "measured/epoll"));
            for (int i = 0; i < BATCHES.length; i++) {
                int n = BATCHES[i];
                double ratio = perOpAtN[i] / epoll();
                b.append(String.format(Locale.ROOT, "%6d %16s %16s %16s %14s%n", n, ns(seedModel(n)),
                    ns(perOpModel(n)), ns(perOpAtN[i]),
                    Double.isNaN(ratio) ? "?" : String.format(Locale.ROOT, "%.2f", ratio)));
            }
            caveats.forEach(c -> b.append("  ! ").append(c).append('\n'));
            return b.toString();
        }

        /** @return "123 ns", or "too noisy" for NaN */
        public static String ns(double v) {
            return Double.isNaN(v) ? "too noisy" : String.format(Locale.ROOT, "%.0f ns", v);
        }
    }

    /**
     * Medians of the timed calls, nanoseconds per call as the clock saw them (clock cost included), each the median
     * over rounds of the round's median.
     *
     * @param clock     a {@code nanoTime} pair with nothing between
     * @param getppid   getppid(2)
     * @param write     write(2) of size bytes
     * @param read      read(2) of size bytes
     * @param ringSend  one enter carrying one SEND
     * @param ringRecv  one enter carrying one RECV whose bytes are there
     * @param perOpAtN  one enter carrying n SENDs, divided by n, for each of {@link #BATCHES}
     * @param spread    (max - min) / median of the round medians of clock, getppid, write, read, ringSend, ringRecv
     */
    record Raw(double clock, double getppid, double write, double read, double ringSend, double ringRecv,
               double[] perOpAtN, double[] spread) { }

    /** Round medians further apart than this, relative to their median, make a figure "noisy". */
    static final double NOISY_SPREAD = 0.5;
    /** No machine needs this long for getppid; more means the measurement was preempted. */
    static final double MAX_PLAUSIBLE_SWITCH_NS = 20_000;
    /** Rounds, each timing every figure once, so that a busy moment hits one round and not one figure. */
    static final int ROUNDS = 5;
    /** Calls per figure in the untimed first round. */
    static final int WARMUP_CALLS = 20_000;

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
    public record Report(Costs costs, int[] batches, String echoVariant, double observedN, double measuredRatio,
                  double seedPredictedRatio, double perOpPredictedRatio) {
        /**
         * @param costs         what was measured
         * @param echoVariant   the echo run it is compared with (empty when none ran)
         * @param observedN     SQEs per io_uring_enter in Ringwire's counters during that run (NaN when none ran)
         * @param measuredRatio Ringwire's server CPU per message over netty-epoll's in that run (NaN when none ran)
         * @return the model next to the observation
         */
        public static Report of(Costs costs, String echoVariant, double observedN, double measuredRatio) {
            return new Report(costs, BATCHES.clone(), echoVariant, observedN, measuredRatio,
                costs.seedModel(observedN) / costs.epoll(), costs.perOpModel(observedN) / costs.epoll());
        }

        /** @return the terminal text */
        public String text() {
            StringBuilder b = new StringBuilder("== cost-model: " + Sources.COST_MODEL_LINKED + " ==\n")
                .append(costs.table());
            if (!Double.isNaN(observedN)) {
                b.append(String.format(Locale.ROOT, "echo %s: Ringwire submitted n = %.2f SQEs per enter; "
                    + "predicted io_uring/epoll cost %.2f (the model's formula) or %.2f (per operation); measured "
                    + "server CPU per message ringwire/netty-epoll = %.2f%n", echoVariant, observedN,
                    seedPredictedRatio, perOpPredictedRatio, measuredRatio));
                b.append("(Ringwire's receives are multishot: they cost no SQE and no enter of their own, which the "
                    + "model, written for one SQE per send and per recv, does not know.)\n");
            }
            return b.toString();
        }
    }

    private CostModel() { }

    /**
     * Times every figure in {@link #ROUNDS} rounds after an untimed one (the downcalls compile), each call on its own,
     * and keeps medians: a preempted call or a busy moment moves a median far less than a mean.
     *
     * @param size       bytes per send/recv (the echo message size)
     * @param iterations timed calls per figure, spread over the rounds
     * @return s, w, t and the batch curve, NaN where the machine was too noisy to tell
     * @throws IOException if the loopback connection or the ring cannot be set up
     */
    public static Costs measure(int size, int iterations) throws IOException {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.builder().entries(128).build()) {
            int[] fds = loopbackPair(arena);
            try {
                MemorySegment capture = Libc.newErrnoCapture();
                MemorySegment buf = arena.allocate(Math.max(size, 1) * 64L);
                int perRound = Math.max(200, iterations / ROUNDS);
                double[][] rounds = new double[6 + BATCHES.length][ROUNDS];
                for (int r = -1; r < ROUNDS; r++) {
                    // round -1 is untimed and long enough for the JIT to compile the downcalls
                    int calls = r < 0 ? Math.max(perRound, WARMUP_CALLS) : perRound;
                    double[] m = new double[6 + BATCHES.length];
                    m[0] = timeClock(calls);
                    m[1] = timeGetppid(capture, calls);
                    double[] wr = timeWriteRead(fds, buf, size, calls);
                    m[2] = wr[0];
                    m[3] = wr[1];
                    m[4] = timeRingSends(ring, fds, buf, size, 1, calls);
                    m[5] = timeRingRecv(ring, fds, buf, size, calls);
                    for (int i = 0; i < BATCHES.length; i++) {
                        m[6 + i] = timeRingSends(ring, fds, buf, size, BATCHES[i],
                            Math.max(100, calls / BATCHES[i]));
                    }
                    if (r >= 0) { // round -1 warms up
                        for (int k = 0; k < m.length; k++) {
                            rounds[k][r] = m[k];
                        }
                    }
                }
                double[] med = new double[rounds.length];
                double[] spread = new double[6];
                for (int k = 0; k < rounds.length; k++) {
                    double[] v = rounds[k].clone();
                    Arrays.sort(v);
                    med[k] = v[v.length / 2];
                    if (k < spread.length) {
                        spread[k] = med[k] > 0 ? (v[v.length - 1] - v[0]) / med[k] : Double.POSITIVE_INFINITY;
                    }
                }
                return Costs.derive(new Raw(med[0], med[1], med[2], med[3], med[4], med[5],
                    Arrays.copyOfRange(med, 6, med.length), spread), size);
            } finally {
                Libc.close(fds[0]);
                Libc.close(fds[1]);
            }
        }
    }

    private static double median(long[] v) {
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static double timeClock(int iterations) {
        long[] d = new long[iterations];
        long sink = 0;
        for (int i = 0; i < iterations; i++) {
            long a = System.nanoTime();
            long b = System.nanoTime();
            sink += a;
            d[i] = b - a;
        }
        return sink == 42 ? 0 : median(d);
    }

    private static double timeGetppid(MemorySegment capture, int iterations) {
        long[] d = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long a = System.nanoTime();
            Libc.syscall(capture, SYS_GETPPID, 0, 0, 0, 0, 0, 0);
            d[i] = System.nanoTime() - a;
        }
        return median(d);
    }

    /** @return median ns of one write(2) and of one read(2) */
    private static double[] timeWriteRead(int[] fds, MemorySegment buf, int size, int iterations)
        throws IOException {
        long[] writes = new long[iterations];
        long[] reads = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long a = System.nanoTime();
            check(Libc.write(fds[0], buf, size), "write");
            long b = System.nanoTime();
            readFully(fds[1], buf, size);
            long c = System.nanoTime();
            writes[i] = b - a;
            reads[i] = c - b;
        }
        return new double[] {median(writes), median(reads)};
    }

    /** @return median ns per SEND when {@code n} SENDs share one enter */
    private static double timeRingSends(IoUring ring, int[] fds, MemorySegment buf, int size, int n, int enters)
        throws IOException {
        long[] d = new long[enters];
        int[] done = {0};
        CompletionHandler count = (userData, res, flags) -> done[0]++;
        for (int i = 0; i < enters; i++) {
            for (int k = 0; k < n; k++) {
                ring.sq().prepSend(fds[0], buf.address(), size, 0, k);
            }
            done[0] = 0;
            long a = System.nanoTime();
            int r = ring.submitAndWait(n, -1);
            d[i] = System.nanoTime() - a;
            check(r, "io_uring_enter");
            while (done[0] < n) {
                ring.cq().drain(count, 256);
            }
            readFully(fds[1], buf, size * n);
        }
        return median(d) / n;
    }

    /** @return median ns of one enter carrying one RECV whose bytes are already there */
    private static double timeRingRecv(IoUring ring, int[] fds, MemorySegment buf, int size, int iterations)
        throws IOException {
        long[] d = new long[iterations];
        int[] got = {0};
        CompletionHandler result = (userData, res, flags) -> got[0] = res;
        for (int i = 0; i < iterations; i++) {
            check(Libc.write(fds[0], buf, size), "write");
            ring.sq().prepRecv(fds[1], buf.address(), size, 0, 7);
            long a = System.nanoTime();
            int r = ring.submitAndWait(1, -1);
            d[i] = System.nanoTime() - a;
            check(r, "io_uring_enter");
            got[0] = Integer.MIN_VALUE;
            while (got[0] == Integer.MIN_VALUE) {
                ring.cq().drain(result, 16);
            }
            check(got[0], "recv");
            if (got[0] < size) {
                readFully(fds[1], buf, size - got[0]);
            }
        }
        return median(d);
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
