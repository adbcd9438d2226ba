package io.ringwire.lab.load;

import io.ringwire.lab.server.LabServer;
import io.ringwire.lab.results.Measurement;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.NativeIoException;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.BooleanSupplier;


/**
 * The lab's load generator for every socket workload: one thread, many connections, messages that are
 * length-prefixed frames. The echo server returns the bytes as they come, the frame server frame by frame; either
 * way each connection's answers come back in order, and every byte is checked.
 *
 * <p>Frame layout (big-endian): {@code [length of the rest: 4][stream: 4][seq: 4][payload]}, {@code size} bytes in
 * all; the payload is a window into a fixed pseudo-random pattern whose start depends on the connection, stream and
 * sequence, so a byte that is corrupted, reordered or delivered to the wrong connection is a mismatch. Checking
 * compares whole payloads with {@link Arrays#mismatch(byte[], int, int, byte[], int, int)}; it is cheap enough that the
 * generator saturates a single-threaded server.
 *
 * <p>Two modes:
 * <ul>
 *   <li><b>closed loop</b> ({@code rate == 0}): each connection keeps {@code window} frames in flight and sends the
 *   next when one returns. With {@code messagesPerStream > 0} the window is {@code window} concurrent streams of that
 *   many messages (the RSocket evaluation's RPC back end: a stream's next message follows its previous answer, a
 *   finished stream is replaced by a new one); with 0, one endless stream (the RSocket evaluation's single stream,
 *   Netty's announcement's echo).</li>
 *   <li><b>open loop</b> ({@code rate > 0}): messages leave on a fixed schedule, {@code rate} per second over all
 *   connections, in batches of {@code batch} per connection, whatever the answers do; latency runs from the scheduled
 *   send time, so a stalled server cannot hide its stall (no coordinated omission).</li>
 * </ul>
 *
 * <p>Two ways to do the I/O ({@link Engine}), the same frames and checks: {@link Engine#IO_URING} (the default where
 * the kernel has it) drives every connection through one io_uring of the project's binding: a multishot RECV per
 * connection into a shared provided buffer ring, one SEND per connection with bytes to go, and one
 * {@code io_uring_enter} per iteration carrying all of them, so the generator costs less per message than the server
 * it loads; {@link Engine#NIO} is one NIO selector with a read and a write system call per connection and wake-up.
 */
public final class LoadGenerator implements Generator {
    /** Bytes of the frame header: length, stream, sequence. */
    public static final int HEADER = 12;

    /**
     * What to generate.
     *
     * @param conns             connections
     * @param size              bytes per frame, header included (at least {@value #HEADER})
     * @param window            closed loop: frames (or streams) in flight per connection
     * @param messagesPerStream closed loop: messages per finite stream, 0 for one endless stream per connection
     * @param rate              open loop: messages per second over all connections; 0 for closed loop
     * @param streamsPerConn    open loop: streams each connection's messages rotate over
     * @param batch             open loop: messages sent together to one connection
     */
    public record Config(int conns, int size, int window, int messagesPerStream, double rate, int streamsPerConn,
                         int batch) {
        /** Validates. */
        public Config {
            if (size < HEADER || size > LabServer.MAX_FRAME) {
                throw new IllegalArgumentException("message size must be " + HEADER + " bytes (the header) to "
                    + LabServer.MAX_FRAME + ": size=" + size);
            }
            if (conns < 1 || window < 1 || messagesPerStream < 0 || rate < 0 || streamsPerConn < 1 || batch < 1) {
                throw new IllegalArgumentException("conns, window, streams and batch must be positive, rate and "
                    + "messages per stream not negative: " + this);
            }
        }

        /** @return closed-loop echo of one endless stream per connection */
        public static Config closed(int conns, int size, int window) {
            return new Config(conns, size, window, 0, 0, 1, 1);
        }

        public boolean openLoop() {
            return rate > 0;
        }
    }

    /**
     * What one measured window saw.
     *
     * @param messages       answers received in the window
     * @param streams        finite streams completed in the window
     * @param sent           messages sent in the window (open loop: offered, i.e. whose scheduled send time fell in it)
     * @param seconds        the window
     * @param latencyNanos   per message: send (open loop: scheduled send) to complete answer
     * @param streamNanos    per finite stream: first send to last answer
     * @param sendLagNanos   open loop: how late messages left against their schedule
     * @param mismatches     bytes that differed from what was sent
     * @param errors         connections lost: failed, closed by the server, or (closed loop) left with a message
     *                       unanswered through the whole window and for {@value #STARVED_GRACE_SECONDS} s after it
     * @param starved        closed loop: connections left with a message unanswered through the whole window whose
     *                       answer came within {@value #STARVED_GRACE_SECONDS} s after it (checked like any other): a
     *                       server that starves some connections while it serves the rest; each such wait is in
     *                       {@code latencyNanos}, though the answer came after the window
     * @param cpuSeconds     this thread's CPU in the window
     * @param connectSeconds how long opening every connection took, before the warm-up
     */
    public record Result(long messages, long streams, long sent, double seconds, Histogram latencyNanos,
                         Histogram streamNanos, Histogram sendLagNanos, long mismatches, long errors, long starved,
                         double cpuSeconds, double connectSeconds) {
        /** @return answers per second */
        public double rate() {
            return messages / seconds;
        }

        /**
         * @param openLoop whether send lag means anything
         * @return the same, in µs
         */
        public Measurement measurement(boolean openLoop) {
            Histogram h = latencyNanos;
            boolean any = h.getTotalCount() > 0;
            return new Measurement(messages, sent, streams, seconds,
                any ? h.getValueAtPercentile(50) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(90) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(99) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(99.9) / 1e3 : Double.NaN,
                any ? h.getMaxValue() / 1e3 : Double.NaN,
                streamNanos.getTotalCount() > 0 ? streamNanos.getValueAtPercentile(99) / 1e6 : Double.NaN,
                openLoop && sendLagNanos.getTotalCount() > 0 ? sendLagNanos.getValueAtPercentile(99) / 1e3
                    : Double.NaN,
                mismatches, errors, starved, cpuSeconds,
                openLoop && sendLagNanos.getTotalCount() > 0 ? sent / seconds : Double.NaN);
        }
    }

    /** How the generator does its I/O. */
    public enum Engine {
        /** One io_uring through the project's binding: multishot RECV into a buffer ring, batched SENDs. */
        IO_URING("io_uring"),
        /** One NIO selector: a read and a write system call per connection and wake-up. */
        NIO("nio");

        private final String label;

        Engine(String label) {
            this.label = label;
        }

        /** @return the name the command line and the results use */
        public String label() {
            return label;
        }

        /**
         * @param name {@code io_uring} or {@code nio}
         * @return that engine
         */
        public static Engine of(String name) {
            for (Engine e : values()) {
                if (e.label.equalsIgnoreCase(name)) {
                    return e;
                }
            }
            throw new IllegalArgumentException("unknown load generator '" + name + "': io_uring or nio");
        }

        /** @return io_uring when this kernel has what the generator needs (multishot RECV, buffer rings), else NIO */
        public static Engine best() {
            IoUringProbe p = IoUringProbe.get();
            return p.isAvailable() && p.missingForRingwire().isEmpty() ? IO_URING : NIO;
        }
    }

    private static final int PATTERN_SPAN = 256;

    final java.net.SocketAddress server;
    final Config config;
    private final Engine engine;
    private final byte[] pattern;
    private final int payload;
    private int connsPerSource = CONNS_PER_SOURCE;

    /**
     * @param server where to connect: a loopback address, nothing else
     * @param config what to generate
     */
    public LoadGenerator(InetSocketAddress server, Config config) {
        this(server, config, Engine.NIO);
    }

    /**
     * @param server where to connect: a loopback address, nothing else
     * @param config what to generate
     * @param engine how to do the I/O
     */
    public LoadGenerator(java.net.SocketAddress server, Config config, Engine engine) {
        if (!(server instanceof java.net.UnixDomainSocketAddress)
            && !(server instanceof InetSocketAddress inet && inet.getAddress() != null
                && inet.getAddress().isLoopbackAddress())) {
            throw new IllegalArgumentException("the lab only loads loopback addresses and Unix domain sockets: "
                + server);
        }
        this.server = server;
        this.config = config;
        this.engine = engine;
        this.payload = config.size() - HEADER;
        this.pattern = new byte[payload + PATTERN_SPAN];
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < pattern.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            pattern[i] = (byte) x;
        }
    }

    /**
     * For tests: how long a closed loop waits for every connection's first answer before it runs at its full window
     * anyway (default {@value #ALL_ANSWERED_MAX_SECONDS} s).
     *
     * @return this
     */
    LoadGenerator primingLimit(double seconds) {
        primingLimitNanos = (long) (seconds * 1e9);
        return this;
    }

    /**
     * Connections per loopback source address when there are more than this many in all. One source address has
     * about 28,000 ephemeral ports to one server port, so 100,000 connections need several; and the kernel's search
     * for a free port slows as they fill (19,000 connections from one address set up at 3,000/s, against 8,000/s for
     * 10,000), which would measure the port search instead of the server.
     */
    static final int CONNS_PER_SOURCE = 4096;

    /**
     * @param conn a connection's index
     * @return where it connects from: null (the kernel's choice, 127.0.0.1) unless there are more than
     *         {@link #CONNS_PER_SOURCE} connections to an IPv4 loopback server, then 127.0.0.1, 127.0.0.2, ...
     *         that many each (all of 127.0.0.0/8 is loopback)
     */
    InetSocketAddress sourceAddress(int conn) {
        if (config.conns() <= connsPerSource || !(server instanceof InetSocketAddress inet)
            || !(inet.getAddress() instanceof java.net.Inet4Address)) {
            return null;
        }
        int n = 1 + conn / connsPerSource;
        if (n > 254) {
            throw new IllegalArgumentException("too many connections for 127.0.0.1-254 at " + connsPerSource
                + " each: " + config.conns());
        }
        try {
            return new InetSocketAddress(java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) n}), 0);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /**
     * @param n connections per source address (tests spread a few connections over several addresses)
     * @return this
     */
    LoadGenerator connsPerSource(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("connections per source address must be positive: " + n);
        }
        connsPerSource = n;
        return this;
    }

    static int patternStart(int conn, int stream, int seq) {
        return (conn * 13 + stream * 7 + seq) & (PATTERN_SPAN - 1);
    }

    /** How long a closed loop holds its full window back, waiting for its last connections' first answers. */
    static final int ALL_ANSWERED_MAX_SECONDS = 30;
    private long primingLimitNanos = ALL_ANSWERED_MAX_SECONDS * 1_000_000_000L;

    /**
     * Closed loop: how long after the window a connection whose oldest message waited through all of it may still
     * answer it and count as starved rather than lost ({@link Result#starved}).
     */
    public static final int STARVED_GRACE_SECONDS = 10;
    private long starvedGraceNanos = STARVED_GRACE_SECONDS * 1_000_000_000L;

    /**
     * For tests: how long after the window a starved connection's answer may come (default
     * {@value #STARVED_GRACE_SECONDS} s).
     *
     * @return this
     */
    LoadGenerator starvedGrace(double seconds) {
        starvedGraceNanos = (long) (seconds * 1e9);
        return this;
    }

    /** Frames sent and not yet answered, oldest first, with what their answers must be. */
    private static final class InFlight {
        int[] stream = new int[16];
        int[] seq = new int[16];
        long[] sentAt = new long[16];
        long[] streamStart = new long[16];
        int head;
        int count;

        void add(int st, int sq, long at, long start) {
            if (count == stream.length) {
                grow();
            }
            int i = (head + count) & (stream.length - 1);
            stream[i] = st;
            seq[i] = sq;
            sentAt[i] = at;
            streamStart[i] = start;
            count++;
        }

        private void grow() {
            int n = stream.length;
            int[] st = new int[n * 2];
            int[] sq = new int[n * 2];
            long[] at = new long[n * 2];
            long[] ss = new long[n * 2];
            for (int k = 0; k < count; k++) {
                int i = (head + k) & (n - 1);
                st[k] = stream[i];
                sq[k] = seq[i];
                at[k] = sentAt[i];
                ss[k] = streamStart[i];
            }
            stream = st;
            seq = sq;
            sentAt = at;
            streamStart = ss;
            head = 0;
        }

        int mask() {
            return stream.length - 1;
        }
    }

    /** One connection: what it has to send, what came back and is not yet checked, what it waits for. */
    final class Conn {
        final int id;
        ByteBuffer out;
        final ByteBuffer in;
        final InFlight inFlight = new InFlight();
        int nextSeq;
        int nextStream;
        boolean dirty;
        boolean queued;
        boolean lost;
        /** Whether an answer has come back on it yet. */
        boolean answered;
        /** Closed loop, after the window: its oldest message waited through all of it and is still unanswered. */
        boolean starving;
        /** Closed loop, before every connection has answered once: the answer whose follow-up waits. */
        boolean deferred;
        int deferredStream;
        int deferredSeq;
        long deferredStart;
        // NIO
        SocketChannel ch;
        SelectionKey key;
        // io_uring
        int fd = -1;
        MemorySegment staging;
        boolean sending;
        boolean receiving;
        int stagedLength;
        int stagedSent;

        Conn(int id) {
            this.id = id;
            // a closed loop never has more than size × window bytes outstanding; 10,000 connections must stay cheap
            int inFlightBytes = config.openLoop() ? config.size() * config.batch() * 4
                : (int) Math.min(1 << 24, (long) config.size() * config.window());
            this.out = ByteBuffer.allocate(Math.max(inFlightBytes, config.size()));
            out.flip();
            this.in = ByteBuffer.allocate(Math.max(2 * config.size(), Math.min(64 * 1024, inFlightBytes)));
        }

        void send(int stream, int seq, long sentAt, long streamStart) {
            // out stays in read mode (position..limit unsent); append after limit, moving or growing only when full,
            // so a large window costs no memmove per frame
            int size = config.size();
            if (out.capacity() - out.limit() < size) {
                out.compact().flip();
                if (out.capacity() - out.limit() < size) {
                    ByteBuffer bigger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.limit() + size));
                    bigger.put(out).flip();
                    out = bigger;
                }
            }
            int at = out.limit();
            out.limit(at + size);
            out.putInt(at, size - 4).putInt(at + 4, stream).putInt(at + 8, seq);
            out.put(at + HEADER, pattern, patternStart(id, stream, seq), payload);
            inFlight.add(stream, seq, sentAt, streamStart);
            dirty = true;
        }
    }

    /**
     * What every engine shares: the connections' frames, the window, the open-loop schedule, the checks and the
     * figures. An engine moves bytes; this decides what they are and counts what came back.
     */
    final class Session {
        final List<Conn> all = new ArrayList<>(config.conns());
        final Histogram latency = new Histogram(60_000_000_000L, 3);
        final Histogram streamTimes = new Histogram(600_000_000_000L, 3);
        final Histogram lag = new Histogram(60_000_000_000L, 3);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final BooleanSupplier warmupOver;
        final double seconds;
        final Runnable onWindow;
        /** {@link #onWindow} at the window's opening, run on a thread of its own; the window opens once it is done. */
        FutureTask<Void> openingEdge;
        final double nanosPerMessage = config.openLoop() ? 1e9 / config.rate() : 0;
        long mismatches;
        long errors;
        long start;
        long windowStart;
        long windowEnd = Long.MAX_VALUE;
        boolean inWindow;
        int answeredConns;
        /** Whether the closed loop runs at its full window (every connection has answered once); open loop: always. */
        boolean primed;
        long messages;
        long streams;
        long sentInWindow;
        long cpuStart;
        long scheduled;          // open loop: messages whose send time has come
        long connectNanos;
        /** What the window saw, as it was when it closed; then, the run's result. */
        Result result;
        /** Whether the window has closed (closed loop: the run may go on, for its starving connections' answers). */
        boolean closed;
        /** Closed loop, after the window: connections still {@link Conn#starving}, and until when they may answer. */
        int starving;
        long starvedDeadline;
        long starved;

        Session(BooleanSupplier warmupOver, double seconds, Runnable onWindow) {
            this.warmupOver = warmupOver;
            this.seconds = seconds;
            this.onWindow = onWindow;
        }

        /**
         * Closed loop: sends one message on every connection, and holds each one's next until every connection has
         * answered once ({@link #releasePrimed}); call once connected. A thread-per-connection server whose first
         * connections are already busy starts the threads of its last ones seconds late (its acceptor gets an ever
         * smaller share of the core: about 25 s for 500 platform threads here); one quiet round lets it start them
         * all first, on every server alike.
         */
        void begin() {
            start = System.nanoTime();
            primed = config.openLoop();
            if (primed) {
                return;
            }
            for (Conn c : all) {
                sendFresh(c, start);
            }
        }

        /** Closed loop: a message that starts a stream (finite streams) or goes on the connection's one stream. */
        private void sendFresh(Conn c, long t) {
            if (config.messagesPerStream() > 0) {
                c.send(++c.nextStream, 0, t, t);
            } else {
                c.send(1, c.nextSeq++, t, t);
            }
        }

        /**
         * Closed loop: once every connection has answered its first message (or after
         * {@value #ALL_ANSWERED_MAX_SECONDS} s, when those that have not count as stalled at the window's end),
         * sends each connection's held follow-up and the rest of its window, handing each to {@code dirty}.
         */
        void releasePrimed(long now, java.util.function.Consumer<Conn> dirty) {
            if (primed || answeredConns + errors < all.size()
                && now - start < primingLimitNanos) {
                return;
            }
            primed = true;
            for (Conn c : all) {
                if (c.lost) {
                    continue;
                }
                if (c.deferred) {
                    c.deferred = false;
                    followUp(c, c.deferredStream, c.deferredSeq, c.deferredStart, now);
                }
                for (int w = 1; w < config.window(); w++) {
                    sendFresh(c, now);
                }
                if (!c.queued) {
                    c.queued = true;
                    dirty.accept(c);
                }
            }
        }

        /**
         * Opens the window when the warm-up is over and, in a closed loop, every connection runs at its full window
         * ({@link #begin}: measured before that, a thread-per-connection server's "500 connections" were 300);
         * closes it when its time is up; true once it closed. The counters and histograms are kept during the
         * warm-up too and reset at the opening, so the opening changes no branch on the answer path
         * ({@link MeasuredWindow} says why).
         */
        boolean tick(long now) {
            if (openingEdge == null && primed && warmupOver.getAsBoolean()) {
                // the opening edge runs beside the load, and the window opens once it has returned: the lab resets
                // the server's statistics (waiting for its answer), then reads the CPU clocks, 10-30 ms here and
                // seconds from a server with hundreds of busy threads. Run in this thread, it held an open loop's
                // sends that long, and they then left at once: at 40 messages/s a connection, two on one
                // connection, a burst no warm-up had had, whose first took branches the servers' compiled code had
                // never seen, inside the window (docs/benchmarks.md, "How the lab measures")
                openingEdge = new FutureTask<>(onWindow, null);
                Thread.ofPlatform().daemon(true).name("lab-window-opens").start(openingEdge);
            }
            if (!inWindow && openingEdge != null && openingEdge.isDone()) {
                throwIfOpeningEdgeFailed();
                long opened = System.nanoTime(); // not now: the edge may have returned since it was read
                inWindow = true;
                windowStart = opened;
                windowEnd = opened + (long) (seconds * 1e9);
                cpuStart = threads.getCurrentThreadCpuTime();
                latency.reset();
                streamTimes.reset();
                lag.reset();
                messages = 0;
                streams = 0;
                sentInWindow = 0;
            }
            if (closed) {
                return starving == 0 || now >= starvedDeadline ? finish() : false;
            }
            if (now < windowEnd) {
                return false;
            }
            if (config.openLoop()) {
                // messages due before the window closed that the generator had not sent yet (it fell behind) are
                // part of the offered load, and at least this late
                for (long m = scheduled; m < dueBy(windowEnd - 1); m += config.batch()) {
                    countIfInWindow(start + (long) (m * nanosPerMessage), now);
                }
            }
            onWindow.run();
            double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            // copies: the run may go on after the window (below), and what comes back then is not the window's
            result = new Result(messages, streams, sentInWindow, seconds, latency.copy(), streamTimes.copy(),
                lag.copy(), mismatches, errors, 0, cpu, connectNanos / 1e9);
            closed = true;
            if (!config.openLoop()) {
                markStarving(now);
            }
            return starving == 0 ? finish() : false;
        }

        /**
         * Closed loop: a connection whose oldest unanswered message has waited the whole window or longer is starving.
         * The run goes on (the load too, as the server knew it) for at most {@link #starvedGraceNanos} more, waiting
         * for those answers: a server that answers them has starved the connection, one that does not has lost it
         * (it stopped answering it, or lost its bytes), and either way the window is not passed off as a slower run.
         */
        private void markStarving(long now) {
            long window = (long) (seconds * 1e9);
            for (Conn c : all) {
                InFlight f = c.inFlight;
                if (!c.lost && f.count > 0 && now - f.sentAt[f.head] >= window) {
                    c.starving = true;
                    starving++;
                }
            }
            starvedDeadline = now + starvedGraceNanos;
        }

        /** Ends the run: connections still starving are lost; @return true */
        private boolean finish() {
            for (Conn c : all) {
                if (c.starving) {
                    lose(c);
                }
            }
            Result w = result;
            result = new Result(w.messages(), w.streams(), w.sent(), w.seconds(), w.latencyNanos(), w.streamNanos(),
                w.sendLagNanos(), mismatches, errors, starved, w.cpuSeconds(), w.connectSeconds());
            return true;
        }

        /** Throws what the window's opening edge threw, if anything; call once it is done. */
        private void throwIfOpeningEdgeFailed() {
            try {
                openingEdge.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // cannot happen: it is done
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new IllegalStateException(e.getCause());
            }
        }

        /**
         * Open loop: queues every message whose time has come, in batches of {@code batch} to one connection, and
         * hands each connection that got one to {@code dirty} once.
         *
         * @return nanoseconds until the next message is due
         */
        long schedule(long now, java.util.function.Consumer<Conn> dirty) {
            long due = dueBy(now);
            while (scheduled < due) {
                long event = scheduled / config.batch();
                long at = start + (long) (scheduled * nanosPerMessage);
                Conn c = all.get((int) (event % all.size()));
                int stream = (int) ((event / all.size()) % config.streamsPerConn()) + 1;
                for (int b = 0; b < config.batch(); b++) {
                    c.send(stream, c.nextSeq++, at, at);
                }
                countIfInWindow(at, now);
                if (!c.queued && !c.lost) {
                    c.queued = true;
                    dirty.accept(c);
                }
                scheduled += config.batch();
            }
            return start + (long) (scheduled * nanosPerMessage) - System.nanoTime();
        }

        /** Open loop: how many messages are due by {@code t}: whole batches whose send time is at or before it. */
        long dueBy(long t) {
            return ((long) ((t - start) / (nanosPerMessage * config.batch())) + 1) * config.batch();
        }

        /**
         * Counts a batch as offered in the window when its send time falls inside it, whenever it actually left: so
         * the offered count is the schedule's, not the machine's (a stall cannot add messages due after the window or
         * drop those due in it), and records how late it left.
         */
        void countIfInWindow(long at, long now) {
            if (at >= windowStart && at < windowEnd) { // before the window opens: windowStart 0, reset at the opening
                lag.recordValue(Math.max(0, now - at));
                sentInWindow += config.batch();
            }
        }

        /**
         * Checks every whole answer in {@code c.in} against the oldest frame in flight, counts it, sends the next
         * (closed loop), and keeps a partial answer for later.
         *
         * @param t when the bytes arrived
         */
        void answers(Conn c, long t) {
            byte[] a = c.in.array();
            int end = c.in.position();
            int pos = 0;
            int size = config.size();
            while (end - pos >= size) {
                InFlight f = c.inFlight;
                if (f.count == 0) {
                    mismatches += size;   // an answer nobody asked for
                    pos += size;
                    continue;
                }
                int slot = f.head;
                int stream = f.stream[slot];
                int seq = f.seq[slot];
                long sentAt = f.sentAt[slot];
                long streamStart = f.streamStart[slot];
                f.head = (f.head + 1) & f.mask();
                f.count--;
                mismatches += check(a, pos, c.id, stream, seq);
                if (!c.answered) {
                    c.answered = true;
                    answeredConns++;
                }
                pos += size;
                latency.recordValue(Math.max(1, t - sentAt)); // always: see tick
                messages++;
                if (c.starving) { // its message that waited through the whole window, answered after it
                    c.starving = false;
                    starving--;
                    starved++;
                    Histogram h = result.latencyNanos(); // a window of a minute or more could wait past its range
                    h.recordValue(Math.min(h.getHighestTrackableValue(), Math.max(1, t - sentAt)));
                }
                if (primed) {
                    if (!config.openLoop()) {
                        followUp(c, stream, seq, streamStart, t);
                    }
                } else {
                    c.deferred = true; // until every connection has answered once (releasePrimed)
                    c.deferredStream = stream;
                    c.deferredSeq = seq;
                    c.deferredStart = streamStart;
                }
            }
            System.arraycopy(a, pos, a, 0, end - pos);
            c.in.position(end - pos);
        }

        /** Closed loop: what follows an answer: the stream's next message, or a new stream's first. */
        private void followUp(Conn c, int stream, int seq, long streamStart, long t) {
            if (config.messagesPerStream() == 0) {
                c.send(stream, c.nextSeq++, t, t);
            } else if (seq + 1 < config.messagesPerStream()) {
                c.send(stream, seq + 1, t, streamStart);
            } else {
                streamTimes.recordValue(Math.max(1, t - streamStart));
                streams++;
                c.send(++c.nextStream, 0, t, t);
            }
        }

        /** A connection that failed, was closed by the server or stalled: counted, never used again. */
        void lose(Conn c) {
            if (c.starving) {
                c.starving = false;
                starving--;
            }
            if (!c.lost) {
                c.lost = true;
                errors++;
            }
        }
    }

    /**
     * Connects, runs unmeasured until {@code warmupOver} says so, then measures for {@code seconds}.
     *
     * @param warmupOver    polled in the loop: true once the window may open (JIT warm-up, connections settling)
     * @param seconds       the measured window
     * @param onWindow      called at the window's start and at its end, e.g. to read the server's CPU time
     * @return what the window saw
     * @throws IOException if connecting fails
     */
    @Override
    public Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow) throws IOException {
        Session s = new Session(warmupOver, seconds, onWindow);
        return engine == Engine.IO_URING ? new UringDriver(this, s).run() : runNio(s);
    }

    // ---------------------------------------------------------------------------------------------- NIO

    private Result runNio(Session s) throws IOException {
        List<Conn> all = s.all;
        try (Selector selector = Selector.open()) {
            long connectStart = System.nanoTime();
            for (int i = 0; i < config.conns(); i++) {
                boolean unix = server instanceof java.net.UnixDomainSocketAddress;
                SocketChannel ch = unix ? SocketChannel.open(java.net.StandardProtocolFamily.UNIX) : SocketChannel.open();
                Conn c = new Conn(i);
                c.ch = ch;
                try {
                    if (!unix) {
                        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        InetSocketAddress source = sourceAddress(i);
                        if (source != null) {
                            ch.bind(source);
                        }
                    }
                    ch.connect(server);
                    ch.configureBlocking(false);
                    c.key = ch.register(selector, SelectionKey.OP_READ, c);
                } catch (IOException e) {
                    ch.close();
                    throw new IOException("connection " + (i + 1) + " of " + config.conns() + " to " + server
                        + " failed: " + e.getMessage(), e);
                }
                all.add(c);
            }
            s.connectNanos = System.nanoTime() - connectStart;
            s.begin();
            for (Conn c : all) {
                flushNio(c);
            }
            List<Conn> dirty = new ArrayList<>();
            for (;;) {
                if (s.tick(System.nanoTime())) {
                    return s.result;
                }
                long wait = 10_000_000;
                s.releasePrimed(System.nanoTime(), dirty::add);
                if (config.openLoop() || !dirty.isEmpty()) {
                    if (config.openLoop()) {
                        wait = Math.min(wait, s.schedule(System.nanoTime(), dirty::add));
                    }
                    for (Conn c : dirty) {
                        c.queued = false;
                        try {
                            flushNio(c);
                        } catch (IOException e) {
                            s.lose(c);
                            c.key.cancel();
                        }
                    }
                    dirty.clear();
                }
                if (wait > 1_000_000) {
                    selector.select(Math.max(1, (wait - 1_000_000) / 1_000_000));
                } else {
                    selector.selectNow();  // under a millisecond to the next send: select(ms) would oversleep
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    Conn c = (Conn) k.attachment();
                    try {
                        if (k.isValid() && k.isWritable()) {
                            flushNio(c);
                        }
                        if (!k.isValid() || !k.isReadable()) {
                            continue;
                        }
                        int n = c.ch.read(c.in);
                        if (n < 0) {
                            s.lose(c);
                            k.cancel();
                            continue;
                        }
                        s.answers(c, System.nanoTime());
                        if (c.dirty) {
                            flushNio(c);
                        }
                    } catch (IOException e) {
                        s.lose(c);
                        k.cancel();
                    }
                }
            }
        } finally {
            for (Conn c : all) {
                c.ch.close();
            }
        }
    }

    private static void flushNio(Conn c) throws IOException {
        c.dirty = false;
        if (!c.key.isValid()) {
            return;
        }
        c.ch.write(c.out);
        int ops = c.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }

    // ---------------------------------------------------------------------------------------------- io_uring

    /**
     * Whether the io_uring generator holds its connections in direct descriptors (sockets made in its rings'
     * fixed-file tables, no file descriptor each), and how many each ring holds; null: by the count (see
     * {@link #holdsDirect}). For tests: a few connections over several rings.
     */
    Boolean directOverride;
    int slotsPerRing;

    /**
     * For tests: hold the connections in direct descriptors, {@code slotsPerRing} to a ring.
     *
     * @return this
     */
    LoadGenerator directDescriptors(int slotsPerRing) {
        this.directOverride = true;
        this.slotsPerRing = slotsPerRing;
        return this;
    }

    /**
     * Descriptors a JVM of the lab keeps beside its connections (jars, pipes, epoll or io_uring, the listener): the
     * generator's and each server's.
     */
    public static final int SPARE_FDS = 1000;

    /**
     * @return whether {@code conns} connections go in direct descriptors: when they and the JVM's own would not fit
     *         the open-file limit, and the kernel can make, bind and connect sockets in slots
     */
    static boolean holdsDirect(int conns) {
        try {
            if (conns + SPARE_FDS <= io.ringwire.uring.OpenFileLimit.current().soft()) {
                return false;
            }
        } catch (NativeIoException e) {
            return false;
        }
        return directAvailable();
    }

    /** @return whether the kernel has what connections in direct descriptors need (SOCKET, BIND, URING_CMD) */
    public static boolean directAvailable() {
        IoUringProbe p = IoUringProbe.get();
        return p.isDirectDescriptorsSupported() && p.isSocketDirectSupported() && p.isBindSupported();
    }


    /** @return how many bytes of the answer at {@code a[pos..]} differ from the frame (stream, seq) of conn */
    int check(byte[] a, int pos, int conn, int stream, int seq) {
        int from = patternStart(conn, stream, seq);
        if (getInt(a, pos) == config.size() - 4 && getInt(a, pos + 4) == stream && getInt(a, pos + 8) == seq
            && Arrays.mismatch(a, pos + HEADER, pos + config.size(), pattern, from, from + payload) < 0) {
            return 0;
        }
        byte[] expected = ByteBuffer.allocate(config.size()).putInt(config.size() - 4).putInt(stream).putInt(seq)
            .put(pattern, from, payload).array();
        int bad = 0;
        for (int i = 0; i < expected.length; i++) {
            if (a[pos + i] != expected[i]) {
                bad++;
            }
        }
        return bad;
    }

    private static int getInt(byte[] a, int i) {
        return (a[i] & 0xff) << 24 | (a[i + 1] & 0xff) << 16 | (a[i + 2] & 0xff) << 8 | a[i + 3] & 0xff;
    }
}
