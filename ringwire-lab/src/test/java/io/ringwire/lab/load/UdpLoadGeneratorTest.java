package io.ringwire.lab.load;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The UDP generator against a small in-process echo: echoes are counted and byte-checked (a server that corrupts a
 * byte is caught), and a server that drops datagrams costs errors, not a stalled run. Nothing here judges speed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpLoadGeneratorTest {
    private DatagramSocket server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    /** An echo that adds {@code corrupt} to byte 20 of every datagram and drops every {@code dropEvery}-th one. */
    private InetSocketAddress echo(byte corrupt, int dropEvery) throws IOException {
        server = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        DatagramSocket s = server;
        AtomicLong count = new AtomicLong();
        Thread.ofPlatform().daemon().start(() -> {
            byte[] buf = new byte[65_536];
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                for (;;) {
                    p.setLength(buf.length);
                    s.receive(p);
                    if (dropEvery > 0 && count.incrementAndGet() % dropEvery == 0) {
                        continue;
                    }
                    buf[20] += corrupt;
                    s.send(p);
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
    }

    /**
     * @param lossMillis the loss timeout: long where nothing is dropped, so that a slow machine's pause is not taken
     *                   for a loss
     */
    private static LoadGenerator.Result run(InetSocketAddress target, long lossMillis) throws IOException {
        long start = System.nanoTime();
        // the window opens after 0.2 s (a warm-up) and lasts 1 s
        return new UdpLoadGenerator(target, 8, 128, 2, lossMillis)
            .run(() -> System.nanoTime() - start > 200_000_000L, 1.0, () -> { });
    }

    @Test
    void countsAndChecksEveryEcho() throws IOException {
        LoadGenerator.Result r = run(echo((byte) 0, 0), 60_000);
        assertTrue(r.messages() > 0, "echoes counted");
        assertEquals(0, r.mismatches());
        assertEquals(0, r.errors());
        assertTrue(r.latencyNanos().getTotalCount() > 0);
    }

    @Test
    void aCorruptedByteIsCaught() throws IOException {
        // mismatches count from the start, echoes only in the window: here the window opens at the first look, before
        // any echo has been read, so the two cover the same echoes
        LoadGenerator.Result r = new UdpLoadGenerator(echo((byte) 1, 0), 8, 128, 2, 60_000)
            .run(() -> true, 1.0, () -> { });
        assertTrue(r.messages() > 0);
        assertEquals(r.messages(), r.mismatches(), "one wrong byte in every echo");
    }

    @Test
    void droppedDatagramsAreErrorsNotAStall() throws IOException {
        LoadGenerator.Result r = run(echo((byte) 0, 50), UdpLoadGenerator.LOSS_MILLIS);
        assertTrue(r.messages() > 0, "the run went on");
        assertTrue(r.errors() > 0, "the drops were counted");
        assertEquals(0, r.mismatches());
    }
}
