package io.ringwire.transport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An accept storm beyond the open-file limit in a fresh JVM ({@link AcceptStormServer}, two loops, the JDK's logger,
 * nothing logged before): more connections arrive than the server has descriptors for, so accepts fail with EMFILE
 * and the server logs that for the first time while out of descriptors. It must ride the storm out: keep serving the
 * connections it holds, back off accepts, and once the first wave has gone, accept and answer every connection of a
 * second wave. The test's own JVM holds the client ends (its limit is the machine's, far above the server's).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AcceptStormTest {
    /** Descriptors the server has beyond those it holds when the storm starts. */
    private static final int HEADROOM = 64;
    private static final int FIRST_WAVE = 6 * HEADROOM;
    private static final int SECOND_WAVE = HEADROOM / 2;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

    /**
     * @param logger {@code jdk}: the JDK's logger, which logs the EMFILE warning (its time-zone data was read before
     *               the storm); {@code failing}: a logger that throws an Error for every warning, which the loop must
     *               survive and count
     */
    @ParameterizedTest(name = "logger: {0}")
    @ValueSource(strings = {"jdk", "failing"})
    void aServerOutOfDescriptorsKeepsServingAndAnswersTheNextWave(String logger) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
            "-cp", System.getProperty("java.class.path"), AcceptStormServer.class.getName(),
            String.valueOf(HEADROOM), logger).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
            String ready = readLineStartingWith(out, "READY ", output);
            String[] f = ready.split(" ");
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(f[1]));
            long limit = Long.parseLong(f[2]);
            assertTrue(FIRST_WAVE > limit, "the first wave (" + FIRST_WAVE + ") exceeds the limit (" + limit + ")");

            // the first wave: every connection completes in the kernel's backlog; the server accepts what its
            // descriptors allow and must echo on those while it fails to accept the rest
            List<SocketChannel> first = new ArrayList<>();
            Selector selector = Selector.open();
            int echoed;
            try {
                for (int i = 0; i < FIRST_WAVE; i++) {
                    SocketChannel c = SocketChannel.open();
                    c.configureBlocking(false);
                    c.connect(address);
                    first.add(c);
                    c.register(selector, SelectionKey.OP_CONNECT, i);
                }
                echoed = echoOnEach(selector, first);
                assertTrue(echoed > 0, "the server echoed on the connections it had accepted");
                assertTrue(server.isAlive(), () -> "the server is alive during the storm:\n" + drain(out, output));
            } finally {
                for (SocketChannel c : first) {
                    c.close();
                }
                selector.close();
            }

            // the second wave, once the first has gone: every connection accepted and answered
            for (int i = 0; i < SECOND_WAVE; i++) {
                byte[] message = ("second wave " + i).getBytes(StandardCharsets.US_ASCII);
                try (Socket s = new Socket()) {
                    s.connect(address, 30_000);
                    s.setSoTimeout(30_000);
                    OutputStream o = s.getOutputStream();
                    o.write(message);
                    o.flush();
                    byte[] back = s.getInputStream().readNBytes(message.length);
                    assertArrayEquals(message, back, "connection " + i + " of the second wave echoed");
                }
            }
            assertTrue(server.isAlive(), () -> "the server is alive after the storm:\n" + drain(out, output));
            server.getOutputStream().write('\n');
            server.getOutputStream().flush();
            String counters = readLineStartingWith(out, "COUNTERS ", output);
            String[] c = counters.split(" ");
            assertTrue(Long.parseLong(c[1]) >= 1, "accepts backed off on EMFILE: " + counters + "\n" + output);
            assertEquals("alive=true", c[4], counters);
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server exits when asked");
            String all = drain(out, output);
            if (logger.equals("jdk")) {
                assertEquals("0", c[2], "nothing thrown into the loop: " + counters + "\n" + all);
                assertTrue(all.contains("accept failed: EMFILE"), "the EMFILE warning was logged:\n" + all);
                assertTrue(!all.contains("Error") && !all.contains("Exception in thread"),
                    "nothing failed in the server:\n" + all);
            } else {
                assertTrue(Long.parseLong(c[2]) >= 1, "the logger's Errors reached the loop, which survived them: "
                    + counters + "\n" + all);
            }
        } finally {
            server.destroyForcibly();
        }
    }

    /**
     * Finishes each connection's connect and sends it a message; waits for echoes until every connection the server
     * accepted has answered and the rest have waited long enough to show they are not being served.
     *
     * @return connections whose echo came back intact
     */
    private static int echoOnEach(Selector selector, List<SocketChannel> channels) throws Exception {
        int echoed = 0;
        ByteBuffer[] in = new ByteBuffer[channels.size()];
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        // wait for answers until some came and then none for a while (the accepted ones answer at once; the rest
        // wait in the backlog): how long that takes says nothing about the server, only when to stop asking
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (selector.select(100) == 0) {
                if (echoed > 0 && System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(2)) {
                    break;
                }
                continue;
            }
            quietSince = System.nanoTime();
            for (SelectionKey k : selector.selectedKeys()) {
                SocketChannel c = (SocketChannel) k.channel();
                int i = (Integer) k.attachment();
                if (k.isConnectable()) {
                    c.finishConnect();
                    c.write(ByteBuffer.wrap(message(i)));
                    in[i] = ByteBuffer.allocate(message(i).length);
                    k.interestOps(SelectionKey.OP_READ);
                } else if (k.isReadable()) {
                    if (c.read(in[i]) < 0) {
                        throw new AssertionError("connection " + i + " closed by the server");
                    }
                    if (!in[i].hasRemaining()) {
                        assertTrue(Arrays.equals(message(i), in[i].array()), "echo of connection " + i + " intact");
                        echoed++;
                        k.cancel();
                    }
                }
            }
            selector.selectedKeys().clear();
        }
        return echoed;
    }

    private static byte[] message(int i) {
        return ("first wave " + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static String readLineStartingWith(BufferedReader out, String prefix, StringBuilder output)
        throws Exception {
        String line;
        while ((line = out.readLine()) != null) {
            output.append(line).append('\n');
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("the server ended before printing " + prefix + ":\n" + output);
    }

    private static String drain(BufferedReader out, StringBuilder output) {
        try {
            while (out.ready()) {
                output.append(out.readLine()).append('\n');
            }
        } catch (Exception e) {
            output.append("(").append(e).append(")");
        }
        return output.toString();
    }
}
