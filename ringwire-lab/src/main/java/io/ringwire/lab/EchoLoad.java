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
import java.util.Iterator;
import java.util.List;

/**
 * The lab's echo load generator: one thread, one NIO selector, {@code conns} connections each keeping {@code depth}
 * messages of {@code size} bytes in flight (closed loop: a message is sent when one comes back). Every echoed byte is
 * checked against what was sent; latency is send-to-complete-echo per message, in an HdrHistogram.
 *
 * <p>Message layout: bytes 0-3 the connection number, 4-11 the message sequence, the rest a pattern of both, so a
 * byte delivered to the wrong connection, out of order or corrupted is a mismatch.
 */
public final class EchoLoad {
    /** What one measured window saw. */
    public record Result(long roundTrips, double seconds, Histogram latencyNanos, long mismatches, long errors,
                         double cpuSeconds) {
        /** @return round trips per second */
        public double rps() {
            return roundTrips / seconds;
        }
    }

    private final InetSocketAddress server;
    private final int conns;
    private final int size;
    private final int depth;

    /**
     * @param server where to connect (loopback)
     * @param conns  connections
     * @param size   bytes per message (at least 12)
     * @param depth  messages in flight per connection
     */
    public EchoLoad(InetSocketAddress server, int conns, int size, int depth) {
        if (size < 12) {
            throw new IllegalArgumentException("size must be at least 12 bytes (header): size=" + size);
        }
        if (conns < 1 || depth < 1) {
            throw new IllegalArgumentException("conns and depth must be positive: conns=" + conns + ", depth=" + depth);
        }
        if (!server.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("the lab only loads loopback addresses: " + server);
        }
        this.server = server;
        this.conns = conns;
        this.size = size;
        this.depth = depth;
    }

    static byte expected(int conn, long seq, int i) {
        if (i < 4) {
            return (byte) (conn >>> (8 * (3 - i)));
        }
        if (i < 12) {
            return (byte) (seq >>> (8 * (11 - i)));
        }
        return (byte) (conn * 31 + seq * 17 + i);
    }

    private final class Conn {
        final int id;
        final SocketChannel ch;
        final ByteBuffer out;
        final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
        final long[] sentAt = new long[depth];
        long nextSendSeq;
        long nextRecvSeq;
        int recvOffset;
        SelectionKey key;

        Conn(int id, SocketChannel ch) {
            this.id = id;
            this.ch = ch;
            this.out = ByteBuffer.allocateDirect(size * depth);
            out.flip();
        }

        void queueMessage(long now) {
            out.compact();
            long seq = nextSendSeq++;
            for (int i = 0; i < size; i++) {
                out.put(expected(id, seq, i));
            }
            out.flip();
            sentAt[(int) (seq % depth)] = now;
        }
    }

    /**
     * Connects, runs {@code warmupSeconds} unmeasured, then measures for {@code seconds}.
     *
     * @param warmupSeconds seconds before the window
     * @param seconds       the measured window
     * @param onWindow      called at the window's start and end (e.g. to read the server's CPU time)
     * @return what the window saw
     * @throws IOException if connecting fails
     */
    public Result run(double warmupSeconds, double seconds, Runnable onWindow) throws IOException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Conn> all = new ArrayList<>(conns);
        Histogram hist = new Histogram(60_000_000_000L, 3);
        long mismatches = 0;
        long errors = 0;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < conns; i++) {
                SocketChannel ch = SocketChannel.open();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.connect(server);
                ch.configureBlocking(false);
                Conn c = new Conn(i, ch);
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                all.add(c);
            }
            long start = System.nanoTime();
            for (Conn c : all) {
                for (int d = 0; d < depth; d++) {
                    c.queueMessage(start);
                }
                flush(c);
            }
            long windowStart = start + (long) (warmupSeconds * 1e9);
            long windowEnd = windowStart + (long) (seconds * 1e9);
            boolean inWindow = false;
            long roundTrips = 0;
            long cpuStart = 0;
            for (;;) {
                long now = System.nanoTime();
                if (!inWindow && now >= windowStart) {
                    inWindow = true;
                    onWindow.run();
                    cpuStart = threads.getCurrentThreadCpuTime();
                    hist.reset();
                    roundTrips = 0;
                }
                if (now >= windowEnd) {
                    onWindow.run();
                    double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
                    for (Conn c : all) {
                        c.ch.close();
                    }
                    return new Result(roundTrips, seconds, hist, mismatches, errors, cpu);
                }
                selector.select(10);
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    Conn c = (Conn) k.attachment();
                    try {
                        if (k.isValid() && k.isWritable()) {
                            flush(c);
                        }
                        if (k.isValid() && k.isReadable()) {
                            int n = c.ch.read(c.in);
                            if (n < 0) {
                                errors++;
                                k.cancel();
                                continue;
                            }
                            c.in.flip();
                            long t = System.nanoTime();
                            while (c.in.hasRemaining()) {
                                byte b = c.in.get();
                                if (b != expected(c.id, c.nextRecvSeq, c.recvOffset)) {
                                    mismatches++;
                                }
                                if (++c.recvOffset == size) {
                                    c.recvOffset = 0;
                                    long seq = c.nextRecvSeq++;
                                    if (inWindow) {
                                        hist.recordValue(Math.max(1, t - c.sentAt[(int) (seq % depth)]));
                                        roundTrips++;
                                    }
                                    c.queueMessage(t);
                                }
                            }
                            c.in.clear();
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

    private static void flush(Conn c) throws IOException {
        c.ch.write(c.out);
        int ops = c.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }
}
