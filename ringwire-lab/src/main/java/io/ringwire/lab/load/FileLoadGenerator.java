package io.ringwire.lab.load;

import io.ringwire.examples.FileServer;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The file-serving workload's load generator: {@code conns} connections on one NIO selector thread, each asking for
 * a file of {@code size} bytes, reading it whole, and asking again (closed loop, one file in flight per connection).
 * Every byte is checked against {@link FileServer#byteAt(long)}; a connection the server closes is an error.
 */
public final class FileLoadGenerator implements Generator {
    private final InetSocketAddress server;
    private final int conns;
    private final long size;
    private final boolean fromChannel;

    /**
     * @param fromChannel whether the server should send regions made from a FileChannel (else from a File)
     */
    public FileLoadGenerator(InetSocketAddress server, int conns, long size, boolean fromChannel) {
        if (server.getAddress() == null || !server.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("the lab only loads loopback addresses: " + server);
        }
        if (conns < 1 || size < 1) {
            throw new IllegalArgumentException("need conns ≥ 1 and size ≥ 1: " + conns + ", " + size);
        }
        this.server = server;
        this.conns = conns;
        this.size = size;
        this.fromChannel = fromChannel;
    }

    private static final class Conn {
        final SocketChannel ch;
        long received;
        long askedAt;
        /** When it last asked or got bytes: a connection that has neither for a whole window has stalled. */
        long heardAt;
        boolean lost;

        Conn(SocketChannel ch) {
            this.ch = ch;
        }
    }

    private final ByteBuffer in = ByteBuffer.allocateDirect(256 * 1024);
    /** What a read may hold, from where: a file's byte i is {@code byteAt(i)}, which repeats every 256 bytes. */
    private final byte[] expected = new byte[256 + in.capacity()];
    private final byte[] scratch = new byte[in.capacity()];

    {
        for (int j = 0; j < expected.length; j++) {
            expected[j] = FileServer.byteAt(j);
        }
    }
    private final Histogram latency = new Histogram(60_000_000_000L, 3);
    private MeasuredWindow window;
    private long files;
    private long asked;
    private long mismatches;
    private long errors;

    @Override
    public LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow) throws IOException {
        window = new MeasuredWindow(warmupOver, seconds, onWindow, () -> {
            latency.reset();
            files = 0;
            asked = 0;
        });
        Conn[] all = new Conn[conns];
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < conns; i++) {
                SocketChannel ch = SocketChannel.open();
                all[i] = new Conn(ch);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.connect(server);
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ, all[i]);
            }
            for (Conn c : all) {
                ask(c, System.nanoTime());
            }
            for (;;) {
                long now = System.nanoTime();
                if (window.tick(now)) {
                    for (Conn c : all) {
                        if (!c.lost && now - c.heardAt >= (long) (seconds * 1e9)) {
                            c.lost = true;
                            errors++; // stalled: a server that stopped sending, counted as one that hung up is
                        }
                    }
                    return window.close(files, asked, latency, mismatches, errors);
                }
                if (selector.select(10) > 0) {
                    for (SelectionKey k : selector.selectedKeys()) {
                        drain((Conn) k.attachment(), k);
                    }
                    selector.selectedKeys().clear();
                }
            }
        } finally {
            for (Conn c : all) {
                if (c != null) {
                    c.ch.close();
                }
            }
        }
    }

    private void ask(Conn c, long now) throws IOException {
        ByteBuffer request = ByteBuffer.allocate(FileServer.REQUEST);
        request.putLong(size).put((byte) (fromChannel ? 1 : 0)).flip();
        while (request.hasRemaining()) {
            c.ch.write(request); // 9 bytes into an empty socket: taken at once
        }
        c.received = 0;
        c.askedAt = now;
        c.heardAt = now;
        asked++;
    }

    private void drain(Conn c, SelectionKey key) throws IOException {
        for (;;) {
            in.clear();
            int n;
            try {
                n = c.ch.read(in);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                if (!c.lost) {
                    c.lost = true;
                    errors++;
                }
                key.cancel();
                return;
            }
            if (n == 0) {
                return;
            }
            c.heardAt = System.nanoTime();
            int from = (int) (c.received & 0xFF);
            in.get(0, scratch, 0, n); // checked in bulk: a loop per byte made the generator the limit
            if (Arrays.mismatch(scratch, 0, n, expected, from, from + n) >= 0) {
                for (int i = 0; i < n; i++) {
                    if (scratch[i] != expected[from + i]) {
                        mismatches++;
                    }
                }
            }
            c.received += n;
            if (c.received > size) {
                mismatches += c.received - size; // more than was asked for
                c.received = size;
            }
            if (c.received == size) {
                long now = System.nanoTime();
                files++; // always, so that the window's opening (which resets them) changes no branch
                latency.recordValue(Math.max(0, now - c.askedAt));
                ask(c, now);
            }
        }
    }
}
