package io.ringwire.lab.load;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.BooleanSupplier;

/**
 * The UDP echo workload's load generator: {@code clients} connected datagram sockets on one NIO selector thread, each
 * keeping {@code depth} datagrams in flight (closed loop). Every datagram is an {@link EchoPayload}, and every echo
 * is checked byte for byte. A client that hears nothing for the loss timeout ({@value #LOSS_MILLIS} ms in the lab)
 * counts what it had in flight as lost (errors) and sends afresh, so a dropped datagram costs a pause, not the run.
 */
public final class UdpLoadGenerator implements Generator {
    /** The lab's loss timeout. */
    static final long LOSS_MILLIS = 200;

    private final InetSocketAddress server;
    private final int clients;
    private final int size;
    private final int depth;
    private final long lossNanos;
    private final EchoPayload payload;

    public UdpLoadGenerator(InetSocketAddress server, int clients, int size, int depth) {
        this(server, clients, size, depth, LOSS_MILLIS);
    }

    /**
     * @param lossMillis how long a client waits for an answer before it counts its datagrams in flight as lost
     */
    public UdpLoadGenerator(InetSocketAddress server, int clients, int size, int depth, long lossMillis) {
        if (clients < 1 || depth < 1 || size < EchoPayload.HEADER || size > 65_000) {
            throw new IllegalArgumentException("need clients ≥ 1, depth ≥ 1 and " + EchoPayload.HEADER
                + " ≤ size ≤ 65000: " + clients + ", " + depth + ", " + size);
        }
        this.server = server;
        this.clients = clients;
        this.size = size;
        this.depth = depth;
        this.lossNanos = lossMillis * 1_000_000;
        this.payload = new EchoPayload(size);
    }

    private static final class Client {
        final DatagramChannel ch;
        long nextSeq;
        int outstanding;
        long lastHeard;

        Client(DatagramChannel ch) {
            this.ch = ch;
        }
    }

    private final ByteBuffer out = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer in = ByteBuffer.allocateDirect(65_536);
    private final Histogram latency = new Histogram(60_000_000_000L, 3);
    private MeasuredWindow window;
    private long messages;
    private long sent;
    private long mismatches;
    private long errors;

    /**
     * @param warmupOver says when the warm-up is over
     * @param seconds    the measured window
     * @param onWindow   called when the window opens and when it closes
     * @return what the window saw
     * @throws IOException if the sockets cannot be opened
     */
    @Override
    public LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow) throws IOException {
        window = new MeasuredWindow(warmupOver, seconds, onWindow, () -> {
            latency.reset();
            messages = 0;
            sent = 0;
            errors = 0; // losses, which a start-up burst can cause; mismatches count from the start
        });
        Client[] all = new Client[clients];
        try (Selector selector = Selector.open()) {
            long now = System.nanoTime();
            for (int i = 0; i < clients; i++) {
                DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
                all[i] = new Client(ch);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
                ch.connect(server);
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ, all[i]);
                all[i].lastHeard = now;
            }
            for (Client c : all) {
                fill(c, now);
            }
            long nextLossCheck = now + lossNanos / 4;
            for (;;) {
                now = System.nanoTime();
                if (window.tick(now)) {
                    return window.close(messages, sent, latency, mismatches, errors);
                }
                if (selector.select(10) > 0) {
                    for (SelectionKey k : selector.selectedKeys()) {
                        drain((Client) k.attachment());
                    }
                    selector.selectedKeys().clear();
                }
                if (now >= nextLossCheck) {
                    nextLossCheck = now + lossNanos / 4;
                    for (Client c : all) {
                        if (now - c.lastHeard > lossNanos) {
                            errors += c.outstanding; // lost on the way (a full socket buffer drops datagrams)
                            c.outstanding = 0;
                            c.lastHeard = now;
                            fill(c, now);
                        }
                    }
                }
            }
        } finally {
            for (Client c : all) {
                if (c != null) {
                    c.ch.close();
                }
            }
        }
    }

    private void fill(Client c, long now) throws IOException {
        while (c.outstanding < depth) {
            send(c, now);
        }
    }

    private void send(Client c, long now) throws IOException {
        long seq = c.nextSeq++;
        out.clear();
        payload.write(out, seq, now);
        out.flip();
        try {
            if (c.ch.write(out) == size) {
                sent++;
            } else {
                errors++; // the socket's send buffer was full: the datagram was not sent
            }
        } catch (PortUnreachableException e) {
            errors++;
        }
        c.outstanding++;
    }

    private void drain(Client c) throws IOException {
        for (;;) {
            in.clear();
            int n;
            try {
                n = c.ch.read(in);
            } catch (PortUnreachableException e) {
                errors++;
                continue;
            }
            if (n <= 0) {
                return;
            }
            long now = System.nanoTime();
            long seq = in.getLong(0);
            long sentAt = in.getLong(8);
            if (n != size) {
                mismatches += Math.abs(n - size);
            }
            mismatches += payload.mismatches(in, Math.min(n, size), seq);
            messages++; // always, so that the window's opening (which resets them) changes no branch
            latency.recordValue(Math.max(0, now - sentAt));
            c.lastHeard = now;
            if (c.outstanding > 0) {
                c.outstanding--;
            }
            fill(c, now);
        }
    }
}
