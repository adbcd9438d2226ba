package io.ringwire.lab;

import org.HdrHistogram.Histogram;

import java.io.IOException;
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

/**
 * The lab's load generator for every socket workload: one thread, one NIO selector, many connections, messages that
 * are length-prefixed frames. The echo server returns the bytes as they come, the frame server frame by frame; either
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
 *   many messages (seed 000's RPC backend: a stream's next message follows its previous answer, a finished stream is
 *   replaced by a new one); with 0, one endless stream (seed 000's single stream, seed 001's echo).</li>
 *   <li><b>open loop</b> ({@code rate > 0}): messages leave on a fixed schedule, {@code rate} per second over all
 *   connections, in batches of {@code batch} per connection, whatever the answers do; latency runs from the scheduled
 *   send time, so a stalled server cannot hide its stall (no coordinated omission).</li>
 * </ul>
 */
public final class LoadGenerator {
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

        boolean openLoop() {
            return rate > 0;
        }
    }

    /**
     * What one measured window saw.
     *
     * @param messages       answers received in the window
     * @param streams        finite streams completed in the window
     * @param sent           messages sent in the window
     * @param seconds        the window
     * @param latencyNanos   per message: send (open loop: scheduled send) to complete answer
     * @param streamNanos    per finite stream: first send to last answer
     * @param sendLagNanos   open loop: how late messages left against their schedule
     * @param mismatches     bytes that differed from what was sent
     * @param errors         connections lost
     * @param cpuSeconds     this thread's CPU in the window
     */
    public record Result(long messages, long streams, long sent, double seconds, Histogram latencyNanos,
                         Histogram streamNanos, Histogram sendLagNanos, long mismatches, long errors,
                         double cpuSeconds) {
        /** @return answers per second */
        public double rate() {
            return messages / seconds;
        }
    }

    private static final int PATTERN_SPAN = 256;

    private final InetSocketAddress server;
    private final Config config;
    private final byte[] pattern;
    private final int payload;

    /**
     * @param server where to connect: a loopback address, nothing else
     * @param config what to generate
     */
    public LoadGenerator(InetSocketAddress server, Config config) {
        if (server.getAddress() == null || !server.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("the lab only loads loopback addresses: " + server);
        }
        this.server = server;
        this.config = config;
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

    static int patternStart(int conn, int stream, int seq) {
        return (conn * 13 + stream * 7 + seq) & (PATTERN_SPAN - 1);
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

    private final class Conn {
        final int id;
        final SocketChannel ch;
        ByteBuffer out;
        final ByteBuffer in;
        final InFlight inFlight = new InFlight();
        int nextSeq;
        int nextStream;
        SelectionKey key;
        boolean dirty;
        boolean queued;

        Conn(int id, SocketChannel ch) {
            this.id = id;
            this.ch = ch;
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
     * Connects, runs unmeasured until {@code warmupOver} says so, then measures for {@code seconds}.
     *
     * @param warmupOver    polled in the loop: true once the window may open (JIT warm-up, connections settling)
     * @param seconds       the measured window
     * @param onWindow      called at the window's start and at its end, e.g. to read the server's CPU time
     * @return what the window saw
     * @throws IOException if connecting fails
     */
    public Result run(java.util.function.BooleanSupplier warmupOver, double seconds, Runnable onWindow)
        throws IOException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Conn> all = new ArrayList<>(config.conns());
        Histogram latency = new Histogram(60_000_000_000L, 3);
        Histogram streamTimes = new Histogram(600_000_000_000L, 3);
        Histogram lag = new Histogram(60_000_000_000L, 3);
        long mismatches = 0;
        long errors = 0;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < config.conns(); i++) {
                SocketChannel ch = SocketChannel.open();
                Conn c;
                try {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ch.connect(server);
                    ch.configureBlocking(false);
                    c = new Conn(i, ch);
                    c.key = ch.register(selector, SelectionKey.OP_READ, c);
                } catch (IOException e) {
                    ch.close();
                    throw new IOException("connection " + (i + 1) + " of " + config.conns() + " to " + server
                        + " failed: " + e.getMessage(), e);
                }
                all.add(c);
            }
            long start = System.nanoTime();
            if (!config.openLoop()) {
                for (Conn c : all) {
                    for (int w = 0; w < config.window(); w++) {
                        if (config.messagesPerStream() > 0) {
                            c.send(++c.nextStream, 0, start, start);
                        } else {
                            c.send(1, c.nextSeq++, start, start);
                        }
                    }
                    flush(c);
                }
            }
            long windowEnd = Long.MAX_VALUE;
            boolean inWindow = false;
            long messages = 0;
            long streams = 0;
            long sentInWindow = 0;
            long cpuStart = 0;
            long scheduled = 0;             // open loop: messages whose send time has come
            double nanosPerMessage = config.openLoop() ? 1e9 / config.rate() : 0;
            List<Conn> dirty = new ArrayList<>();
            for (;;) {
                long now = System.nanoTime();
                if (!inWindow && warmupOver.getAsBoolean()) {
                    inWindow = true;
                    windowEnd = now + (long) (seconds * 1e9);
                    onWindow.run();
                    cpuStart = threads.getCurrentThreadCpuTime();
                    latency.reset();
                    streamTimes.reset();
                    lag.reset();
                    messages = 0;
                    streams = 0;
                    sentInWindow = 0;
                }
                if (now >= windowEnd) {
                    onWindow.run();
                    double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
                    return new Result(messages, streams, sentInWindow, seconds, latency, streamTimes, lag, mismatches,
                        errors, cpu);
                }
                long wait = 10_000_000;
                if (config.openLoop()) {
                    // every message whose time has come leaves now, in batches of `batch` to one connection
                    long due = ((long) ((now - start) / (nanosPerMessage * config.batch())) + 1) * config.batch();
                    while (scheduled < due) {
                        long event = scheduled / config.batch();
                        long at = start + (long) (scheduled * nanosPerMessage);
                        Conn c = all.get((int) (event % all.size()));
                        int stream = (int) ((event / all.size()) % config.streamsPerConn()) + 1;
                        for (int b = 0; b < config.batch(); b++) {
                            c.send(stream, c.nextSeq++, at, at);
                        }
                        if (inWindow) {
                            lag.recordValue(Math.max(0, now - at));
                            sentInWindow += config.batch();
                        }
                        if (!c.queued && c.key.isValid()) {
                            c.queued = true;
                            dirty.add(c);
                        }
                        scheduled += config.batch();
                    }
                    for (Conn c : dirty) {
                        c.queued = false;
                        try {
                            flush(c);
                        } catch (IOException e) {
                            errors++;
                            c.key.cancel();
                        }
                    }
                    dirty.clear();
                    long next = start + (long) (scheduled * nanosPerMessage);
                    wait = Math.min(wait, next - System.nanoTime());
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
                            flush(c);
                        }
                        if (!k.isValid() || !k.isReadable()) {
                            continue;
                        }
                        int n = c.ch.read(c.in);
                        if (n < 0) {
                            errors++;
                            k.cancel();
                            continue;
                        }
                        long t = System.nanoTime();
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
                            pos += size;
                            if (inWindow) {
                                latency.recordValue(Math.max(1, t - sentAt));
                                messages++;
                            }
                            if (!config.openLoop()) {
                                if (config.messagesPerStream() == 0) {
                                    c.send(stream, c.nextSeq++, t, t);
                                } else if (seq + 1 < config.messagesPerStream()) {
                                    c.send(stream, seq + 1, t, streamStart);
                                } else {
                                    if (inWindow) {
                                        streamTimes.recordValue(Math.max(1, t - streamStart));
                                        streams++;
                                    }
                                    c.send(++c.nextStream, 0, t, t);
                                }
                            }
                        }
                        System.arraycopy(a, pos, a, 0, end - pos);
                        c.in.position(end - pos);
                        if (c.dirty) {
                            flush(c);
                        }
                    } catch (IOException e) {
                        errors++;
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

    private static void flush(Conn c) throws IOException {
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
}
