package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.Errno;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A loop compiled while busy keeps its compiled code when the load drops. C2 compiles a branch that profiling never
 * saw taken as a trap; a busy loop's enters never fail and its drains are never empty, so the first wait that times out
 * once the connections go quiet (Netty's loop waits at most a second, and an idle wait ends with ETIME) used to send
 * the loop's every-iteration methods back to the interpreter. At a low rate they were profiled and compiled again only
 * tens of seconds later, and every message meanwhile ran through profiled C1 code: 1,000 connections at 100 messages/s
 * after 4 s of quiet cost 1.39 x Netty epoll's CPU per message before the fix, 1.15 x after.
 *
 * <p>The JIT's state is per process, and other tests would leave it in any state, so the scenario runs in a JVM of its
 * own ({@link Scenario}), which watches the JIT through JFR's compilation and deoptimization events: echo traffic until
 * {@code RingwireIoHandler.run} is compiled by C2, then quiet for three of the loop's one-second waits, then one message
 * every 20 ms. No outcome depends on the machine's speed: the busy phase lasts until the compilation happened (at
 * most two minutes, or the test is skipped as not applicable); a slower machine only stretches the quiet and low-rate
 * phases, which at worst exercises the idle path less and so can let a regression pass, never fail a sound build.
 */
class JitStabilityTest {
    /** Methods every loop iteration runs: if any of these is deoptimized, the whole loop runs slower. */
    static final Set<String> LOOP_METHODS = Set.of(
        "io.ringwire.transport.RingwireIoHandler.run",
        "io.ringwire.transport.RingwireIoHandler.drainCompletions",
        "io.ringwire.uring.IoUring.enter",
        "io.ringwire.uring.IoUring.submitAndWait",
        "io.ringwire.uring.Libc.syscall",
        "io.ringwire.uring.Libc.ioUringEnter",
        "io.ringwire.uring.CompletionQueue.drain");

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theLoopsCompiledCodeSurvivesTheLoadDropping() throws Exception {
        List<String> out = runScenario();
        String all = String.join("\n", out);
        assumeFalse(out.contains("NOT COMPILED"), () -> "C2 never compiled the loop here, nothing to check:\n" + all);
        assertTrue(out.contains("COMPILED") && out.contains("DONE") && out.contains("exit 0"), all);
        List<String> loopDeopts = out.stream().filter(l -> l.startsWith("DEOPT ")
            && LOOP_METHODS.contains(l.split(" ")[1])).toList();
        assertEquals(List.of(), loopDeopts, () -> "the loop's compiled code was deoptimized after the load dropped "
            + "(every io.ringwire deoptimization after the busy phase follows):\n" + all);
    }

    @Test
    void anEntersExpectedErrorsAreToldFromTheOthersWithoutABranch() {
        for (int ret : new int[] {0, 1, 4096, Integer.MAX_VALUE, -Errno.ETIME, -Errno.EINTR, -Errno.EBUSY,
            -Errno.EAGAIN}) {
            assertEquals(0, RingwireIoHandler.unexpectedEnterError(ret), Errno.name(ret));
        }
        for (int ret : new int[] {-Errno.EBADF, -Errno.EINVAL, -Errno.EFAULT, -Errno.ENOMEM, -Errno.ETIMEDOUT,
            -1, -63, -64, -4 - 64, -Errno.ETIME - 64, -Errno.EAGAIN - 128, Integer.MIN_VALUE}) {
            assertEquals(1, RingwireIoHandler.unexpectedEnterError(ret), "errno " + -ret);
        }
    }

    private static List<String> runScenario() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), Scenario.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(new File("/dev/null")).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } finally {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
        lines.add("exit " + p.exitValue());
        return lines;
    }

    /** The scenario, in a JVM of its own; prints COMPILED, one DEOPT line per io.ringwire deoptimization after it, DONE. */
    static final class Scenario {
        private static final int CONNECTIONS = 16;
        private static final int SIZE = 64;

        public static void main(String[] args) throws Exception {
            // the parent reads this JVM's output to its end, which no timeout of JUnit's can interrupt: a scenario
            // that hangs (an echo that never comes) ends itself, after longer than the busy phase's two minutes and
            // within the test's five, and the parent reports its output
            Thread.ofPlatform().daemon(true).name("scenario-watchdog").start(() -> {
                try {
                    Thread.sleep(TimeUnit.MINUTES.toMillis(4));
                } catch (InterruptedException e) {
                    return;
                }
                System.out.println("HUNG");
                System.out.flush();
                Runtime.getRuntime().halt(3);
            });
            CountDownLatch compiled = new CountDownLatch(1);
            List<String> deopts = new CopyOnWriteArrayList<>();
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
            List<SocketChannel> clients = new ArrayList<>();
            try (RecordingStream jfr = new RecordingStream()) {
                jfr.enable("jdk.Compilation").withThreshold(Duration.ZERO);
                jfr.enable("jdk.Deoptimization").withoutStackTrace();
                jfr.onEvent("jdk.Compilation", e -> {
                    // JFR spells the field "succeded"
                    boolean succeeded = e.getBoolean(e.hasField("succeded") ? "succeded" : "succeeded");
                    if (e.getInt("compileLevel") == 4 && succeeded
                        && "io.ringwire.transport.RingwireIoHandler.run".equals(name(e.getValue("method")))) {
                        compiled.countDown();
                    }
                });
                jfr.onEvent("jdk.Deoptimization", e -> {
                    String m = name(e.getValue("method"));
                    // Ringwire's own methods; the scenario's client (this class) is not the loop
                    if (compiled.getCount() == 0 && m.startsWith("io.ringwire.")
                        && !m.startsWith(JitStabilityTest.class.getName())) {
                        deopts.add("DEOPT " + m + " " + e.getString("reason") + " " + e.getString("action")
                            + " line " + e.getInt("lineNumber"));
                    }
                });
                jfr.startAsync();

                Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                    .childHandler(new TrackingEcho(CONNECTIONS))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
                for (int i = 0; i < CONNECTIONS; i++) {
                    SocketChannel c = SocketChannel.open(server.localAddress());
                    c.socket().setTcpNoDelay(true);
                    clients.add(c);
                }
                ByteBuffer msg = ByteBuffer.allocate(SIZE);
                ByteBuffer echo = ByteBuffer.allocate(SIZE);
                // busy: every connection has a message in flight, until C2 has compiled the loop, and a second more
                long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (compiled.getCount() > 0 && System.nanoTime() < giveUp) {
                    roundTrip(clients, msg, echo);
                }
                if (compiled.getCount() > 0) {
                    System.out.println("NOT COMPILED");
                    return;
                }
                System.out.println("COMPILED");
                long busyUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (System.nanoTime() < busyUntil) {
                    roundTrip(clients, msg, echo);
                }
                // quiet: the loop's waits end by their one-second timeout (ETIME) with nothing to drain
                Thread.sleep(3_500);
                // a low rate: one message on one connection at a time
                for (int i = 0; i < 100; i++) {
                    roundTrip(clients.subList(i % CONNECTIONS, i % CONNECTIONS + 1), msg, echo);
                    Thread.sleep(20);
                }
                jfr.stop(); // delivers every event recorded so far
                deopts.forEach(System.out::println);
                System.out.println("DONE");
            } finally {
                for (SocketChannel c : clients) {
                    c.close();
                }
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        }

        private static void roundTrip(List<SocketChannel> clients, ByteBuffer msg, ByteBuffer echo)
            throws IOException {
            for (SocketChannel c : clients) {
                msg.clear();
                while (msg.hasRemaining()) {
                    c.write(msg);
                }
            }
            for (SocketChannel c : clients) {
                echo.clear();
                while (echo.hasRemaining()) {
                    if (c.read(echo) < 0) {
                        throw new IOException("the server closed a connection");
                    }
                }
            }
        }

        private static String name(Object method) {
            return method instanceof RecordedMethod m ? m.getType().getName() + "." + m.getName() : "?";
        }
    }
}
