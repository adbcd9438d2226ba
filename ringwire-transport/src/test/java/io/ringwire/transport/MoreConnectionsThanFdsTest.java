package io.ringwire.transport;

import io.ringwire.uring.IoUringProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A server with direct descriptors holds more connections than its open-file limit allows descriptors: in a JVM of its
 * own ({@link DirectDescriptorsServer}) whose limit is lowered to {@value #LIMIT}, four loops hold and echo on three
 * times as many connections, each loop's table as large as the limit, while its descriptors stay what the JVM had. One
 * loop alone fills its table: accepting backs off (never spins), the connections held go on echoing, and once some
 * close, new ones are accepted again. This test's JVM holds the client ends.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MoreConnectionsThanFdsTest {
    private static final int LIMIT = 256;

    /** The child server, its output read line by line. */
    private static final class Server implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final StringBuilder seen = new StringBuilder();
        final InetSocketAddress address;

        Server(int loops) throws Exception {
            String java = ProcessHandle.current().info().command().orElse("java");
            process = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), DirectDescriptorsServer.class.getName(),
                String.valueOf(LIMIT), String.valueOf(loops)).redirectErrorStream(true).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String[] ready = line("READY ").split(" ");
            address = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(ready[1]));
        }

        String line(String prefix) throws Exception {
            for (String l; (l = out.readLine()) != null; ) {
                seen.append(l).append('\n');
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
            throw new AssertionError("the server ended without '" + prefix + "':\n" + seen);
        }

        /** @return the server's STATE line as name → value */
        Map<String, Long> state() throws Exception {
            OutputStream in = process.getOutputStream();
            in.write('\n');
            in.flush();
            Map<String, Long> m = new HashMap<>();
            for (String kv : line("STATE ").substring(6).split(" ")) {
                String[] p = kv.split("=");
                m.put(p[0], Long.parseLong(p[1]));
            }
            return m;
        }

        /** Waits (bounded) until the server holds {@code open} connections; returns its state then. */
        Map<String, Long> awaitOpen(long open) throws Exception {
            Map<String, Long> s = state();
            for (int i = 0; i < 300 && s.get("open") != open; i++) {
                Thread.sleep(100);
                s = state();
            }
            return s;
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** Writes one byte on each and reads it back (blocking, a deadline on each). */
    private static void echoOnEach(List<SocketChannel> channels) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(1);
        for (int i = 0; i < channels.size(); i++) {
            SocketChannel c = channels.get(i);
            b.clear().put((byte) i).flip();
            c.write(b);
            b.clear();
            c.socket().setSoTimeout(30_000);
            int n = c.socket().getInputStream().read();
            assertEquals(i & 0xFF, n, "connection " + i + " echoed");
        }
    }

    private static List<SocketChannel> connect(InetSocketAddress address, int n) throws Exception {
        List<SocketChannel> channels = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            channels.add(SocketChannel.open(address));
        }
        return channels;
    }

    private static void closeAll(List<SocketChannel> channels) throws Exception {
        for (SocketChannel c : channels) {
            c.close();
        }
    }

    @Test
    void fourLoopsHoldThreeTimesTheOpenFileLimit() throws Exception {
        assumeTrue(IoUringProbe.get().isDirectDescriptorsSupported(),
            "kernel lacks what direct descriptors need: " + IoUringProbe.get().missingForDirectDescriptors());
        int n = 3 * LIMIT;
        try (Server server = new Server(4)) {
            long fdsIdle = server.state().get("fds");
            List<SocketChannel> channels = connect(server.address, n);
            try {
                Map<String, Long> s = server.awaitOpen(n);
                assertEquals(n, s.get("open"), () -> "every connection held: " + server.seen);
                assertTrue(n > LIMIT, "more than the open-file limit");
                assertEquals(n, s.get("direct"), "each on a direct descriptor");
                assertEquals(fdsIdle, s.get("fds"), "and no descriptor more than with none");
                echoOnEach(channels);
                assertEquals(0, server.state().get("errors"));
            } finally {
                closeAll(channels);
            }
            assertEquals(0, server.awaitOpen(0).get("open"));
            assertEquals(0, server.state().get("slots"), "every slot emptied");
        }
    }

    @Test
    void aFullTableBacksOffAndAcceptsAgainOnceSlotsAreFree() throws Exception {
        assumeTrue(IoUringProbe.get().isDirectDescriptorsSupported(),
            "kernel lacks what direct descriptors need: " + IoUringProbe.get().missingForDirectDescriptors());
        try (Server server = new Server(1)) {
            List<SocketChannel> held = connect(server.address, LIMIT);
            List<SocketChannel> over = new ArrayList<>();
            try {
                Map<String, Long> s = server.awaitOpen(LIMIT);
                assertEquals(LIMIT, s.get("open"), () -> "the table's worth held: " + server.seen);
                over.addAll(connect(server.address, 8)); // the kernel completes them; the table has no room
                for (int i = 0; i < 50 && server.state().get("backoffs") == 0; i++) {
                    Thread.sleep(100);
                }
                s = server.state();
                assertTrue(s.get("backoffs") >= 1, () -> "accepting backed off: " + server.seen);
                assertTrue(s.get("open") <= LIMIT, "no more than the table holds");
                echoOnEach(held.subList(0, 16)); // the ones held are served meanwhile
                closeAll(held.subList(0, 32));
                List<SocketChannel> later = connect(server.address, 4);
                over.addAll(later);
                echoOnEach(later); // accepted once slots are free (those queued before them first)
                assertTrue(server.state().get("open") <= LIMIT, "still no more than the table holds");
                assertTrue(server.process.isAlive(), "the server lives on");
            } finally {
                closeAll(held);
                closeAll(over);
            }
        }
    }
}
