package io.ringwire.lab.experiment;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.LabServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs the lab's load generator unmeasured, closed loop then open loop, against an echo server inside the lab's own
 * JVM, before it measures any server: so that its loop is compiled by C2 with both modes' branches in its profile.
 * Run once per JVM, before the first experiment that uses that generator ({@link Experiment#rehearsingFrameGenerator}).
 *
 * <p>Without it the first fixed-rate run in a lab JVM measured the generator's compiler: the server's priming is a closed loop, the fixed-rate run's open-loop branches then trapped the generator's
 * compiled loop, it ran C1's profiling code again, and C2 compiled it anew (a 39 ms compilation on the generator's
 * core) a second into the window; that run's p99 was 2.0-2.3 ms against 0.3-0.5 ms in the runs after it, whichever
 * server ran first. The lab's warm-up waits for the lab's own compiler to go quiet, but nothing was compiling yet:
 * the code was still counting its way to C2.
 */
final class GeneratorRehearsal {
    static final int CONNS = 64;
    static final int SIZE = 128;
    static final double CLOSED_SECONDS = 2;
    static final double OPEN_SECONDS = 3;
    static final int OPEN_RATE = 20_000;

    private GeneratorRehearsal() {
    }

    /**
     * @param engine the engine the lab measures with
     * @return seconds it took
     * @throws IOException if the in-process echo server cannot be opened or the generator fails
     */
    static double run(LoadGenerator.Engine engine) throws IOException {
        long start = System.nanoTime();
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket ss = new ServerSocket(0, CONNS * 2, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofPlatform().daemon().name("lab-rehearsal-echo").start(() -> accept(ss, accepted));
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            try {
                drive(target, LoadGenerator.Config.closed(CONNS, SIZE, 1), engine, CLOSED_SECONDS);
                drive(target, new LoadGenerator.Config(CONNS, SIZE, 1, 0, OPEN_RATE, 1, 1), engine, OPEN_SECONDS);
            } finally {
                acceptor.interrupt();
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static void drive(InetSocketAddress target, LoadGenerator.Config config, LoadGenerator.Engine engine,
                              double seconds) throws IOException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        LoadGenerator.Result r = new LoadGenerator(target, config, engine)
            .run(() -> System.nanoTime() >= until, 0.2, () -> { });
        if (r.mismatches() + r.errors() > 0) { // the lab's own echo: the generator itself would be broken
            throw new IOException("the load generator's rehearsal against the lab's own echo server failed: "
                + r.mismatches() + " mismatched bytes, " + r.errors() + " errors");
        }
    }

    private static void accept(ServerSocket ss, List<Socket> accepted) {
        while (!ss.isClosed()) {
            try {
                Socket s = ss.accept();
                accepted.add(s);
                Thread.ofPlatform().daemon().name("lab-rehearsal-echo").start(() -> echo(s));
            } catch (IOException e) {
                return; // closed: the rehearsal is over
            }
        }
    }

    private static void echo(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            LabServer.echo(in, out); // the blocking servers' echo
        } catch (IOException e) {
            // the generator closed the connection at the end of its run
        }
    }
}
