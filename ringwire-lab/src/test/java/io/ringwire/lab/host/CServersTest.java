package io.ringwire.lab.host;

import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Progress;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.LabServer;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.server.LabServer;
import io.ringwire.lab.experiment.Progress;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C reference servers, built here with gcc and liburing (skipped, saying why, where they cannot be), answer as the
 * Java servers do: echo byte for byte, frames whole and unchanged, an unfinished frame held until its end arrives, a
 * frame over 1 MiB closing the connection; they speak the lab's control lines, and the lab's workloads run on them
 * without a mismatch. Nothing here judges speed.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CServersTest {
    private static final List<Competitor> C = List.of(Competitor.C_IO_URING, Competitor.C_EPOLL);

    private static void assumeBuilt() {
        List<String> notes = new ArrayList<>();
        CServers.Built b = CServers.build(notes::add);
        assumeTrue(b.problem() == null, () -> "the C servers cannot be built here: " + b.problem());
    }

    private static byte[] frame(int bodyLength, int seed) {
        byte[] f = new byte[4 + bodyLength];
        ByteBuffer.wrap(f).putInt(bodyLength);
        for (int i = 4; i < f.length; i++) {
            f[i] = (byte) (seed + i);
        }
        return f;
    }

    private static byte[] readFully(InputStream in, int n) throws Exception {
        byte[] b = in.readNBytes(n);
        assertEquals(n, b.length, "bytes before the end of the stream");
        return b;
    }

    @Test
    void echoSendsEveryByteBackAsItCame() throws Exception {
        assumeBuilt();
        for (Competitor c : C) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.ECHO, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                s.setSoTimeout(60_000);
                byte[] data = new byte[300_000]; // several receives, more than a socket buffer's worth on its way
                new Random(7).nextBytes(data);
                OutputStream out = s.getOutputStream();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        for (int at = 0; at < data.length; at += 1_000) {
                            out.write(data, at, Math.min(1_000, data.length - at));
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                assertArrayEquals(data, readFully(s.getInputStream(), data.length), c.label());
                writer.join();
            }
        }
    }

    @Test
    void framesComeBackWholeAndAnUnfinishedOneWaitsForItsEnd() throws Exception {
        assumeBuilt();
        for (Competitor c : C) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.FRAMES, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                s.setSoTimeout(60_000);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                // many frames in chunks that split headers and bodies anywhere
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < 500; i++) {
                    all.write(frame(i % 7 == 0 ? 0 : 124 + i % 300, i));
                }
                byte[] frames = all.toByteArray();
                for (int at = 0; at < frames.length; at += 77) {
                    out.write(frames, at, Math.min(77, frames.length - at));
                }
                assertArrayEquals(frames, readFully(in, frames.length), c.label() + ": every frame, unchanged");
                // a header and part of the body: nothing comes back until the rest arrives
                byte[] f = frame(100, 1);
                out.write(f, 0, 50);
                out.flush();
                s.setSoTimeout(300);
                assertThrows(SocketTimeoutException.class, in::read, c.label() + ": an unfinished frame is held");
                s.setSoTimeout(60_000);
                out.write(f, 50, f.length - 50);
                assertArrayEquals(f, readFully(in, f.length), c.label() + ": the frame, once whole");
            }
        }
    }

    @Test
    void aFrameOverOneMebibyteClosesTheConnection() throws Exception {
        assumeBuilt();
        for (Competitor c : C) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.FRAMES, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                s.setSoTimeout(60_000);
                // 4 + (1 MiB - 4) is the longest frame LengthFieldBasedFrameDecoder(1 MiB, 0, 4) takes: one more is
                // too long
                s.getOutputStream().write(ByteBuffer.allocate(8).putInt(LabServer.MAX_FRAME - 3).putInt(0).array());
                int r;
                try {
                    r = s.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    r = -1; // closed with data unread: a reset
                }
                assertEquals(-1, r, c.label() + ": the connection closed");
            }
        }
    }

    @Test
    void theServersAnswerTheLabsControlLinesAndCountWhatTheyDid() throws Exception {
        assumeBuilt();
        for (Competitor c : C) {
            try (ServerProcess server = ServerProcess.start(c, Protocol.ECHO, 1);
                 Socket s = new Socket(server.address().getAddress(), server.address().getPort())) {
                s.setSoTimeout(60_000);
                server.resetStats();
                s.getOutputStream().write(new byte[1000]);
                readFully(s.getInputStream(), 1000);
                // a server counts a send after the call returns, which can be after the echo has arrived here: the
                // stats are read again until the send is counted (or 30 s have passed)
                Map<String, Double> polled = server.stats();
                for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                     polled.getOrDefault("writes", 0.0) < 1 && System.nanoTime() < deadline; ) {
                    Thread.sleep(10);
                    polled = server.stats();
                }
                Map<String, Double> stats = polled;
                assertTrue(stats.getOrDefault("recvBytes", 0.0) >= 1000, () -> c.label() + ": " + stats);
                assertTrue(stats.getOrDefault("writes", 0.0) >= 1, () -> c.label() + ": " + stats);
                assertTrue(stats.getOrDefault("enters", 0.0) >= 1, () -> c.label() + ": " + stats);
                // at least a wait, a receive and a send: the C servers count every system call of their loop
                assertTrue(stats.getOrDefault("syscalls", 0.0) >= (c == Competitor.C_EPOLL ? 3 : 1),
                    () -> c.label() + ": " + stats);
                assertTrue(server.live().isEmpty(), c.label() + ": no heap to report");
                assertEquals(0, server.directDescriptors(), c.label());
            }
        }
    }

    @Test
    void aServerWhoseLabIsGoneEndsItself() throws Exception {
        assumeBuilt();
        for (Competitor c : C) {
            Process p = new ProcessBuilder(ServerProcess.command(c, ServerProcess.freePort(), Protocol.ECHO, 1,
                ServerJvm.DEFAULT)).redirectErrorStream(true).start();
            try {
                java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                    p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null && !line.startsWith("READY")) {
                    // the io_uring server's line about its ring before it
                }
                assertTrue(line != null, c + " printed READY");
                p.getOutputStream().close();
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), c + " ended after its stdin closed");
                assertEquals(0, p.exitValue(), c.label());
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void theLabsEchoAndRpcBackendRunOnThemWithoutAMismatch() throws Exception {
        assumeBuilt();
        Experiment.Settings s = new Experiment.Settings(C, 1, 0.3, 1.0, 0.7, 1);
        List<RunResult> runs = new ArrayList<>(Workloads.echo(s, 8, 200, 2, 0).run(Progress.silent()));
        runs.addAll(Workloads.rpcBackend(s, 4, 50, 8, 128).run(Progress.silent()));
        runs.addAll(Workloads.echo(s, 8, 128, 1, 2_000).run(Progress.silent()));
        assertEquals(6, runs.size());
        for (RunResult r : runs) {
            assertEquals(0, r.mismatches(), r::toString);
            assertEquals(0, r.errors(), r::toString);
            assertTrue(r.rate() > 0, r::toString);
            assertTrue(r.serverCpuUsPerMsg() > 0, r::toString);
        }
    }

    @Test
    void theCServersServeEchoAndFramesOnly() {
        Experiment.Settings s = new Experiment.Settings(C, 1, 0.3, 1.0, 0.7, 1);
        assertThrows(IllegalArgumentException.class, () -> Workloads.udpEcho(s, 4, 128, 1));
        assertThrows(IllegalArgumentException.class, () -> Workloads.domainEcho(s, 4, 128, 1));
    }
}
