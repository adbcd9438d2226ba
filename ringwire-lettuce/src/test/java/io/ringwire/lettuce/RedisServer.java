package io.ringwire.lettuce;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real redis-server (Debian's package) for the tests, on a loopback port and a Unix socket in a directory of the
 * test's, run in the foreground as a child process and ended by its PID ({@link #close()}, {@link #kill()}), never
 * left running. Tests that need one call {@link #assumeInstalled()} first: without redis-server they are skipped.
 */
final class RedisServer implements AutoCloseable {
    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    final int port;
    final Path dir;
    final Path socket;
    private final List<String> extraArgs;
    private Process process;

    private RedisServer(int port, Path dir, List<String> extraArgs) {
        this.port = port;
        this.dir = dir;
        this.socket = dir.resolve("redis-" + port + ".sock");
        this.extraArgs = extraArgs;
    }

    static void assumeInstalled() {
        Assumptions.assumeTrue(onPath("redis-server"),
            "redis-server is not installed (Debian's package redis-server; .ci/run installs it): skipped");
    }

    static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /** Starts redis-server on a free loopback port and a Unix socket in {@code dir}, waiting until it answers. */
    static RedisServer start(Path dir, String... extraArgs) throws IOException, InterruptedException {
        RedisServer server = new RedisServer(freePort(), dir, List.of(extraArgs));
        server.start();
        return server;
    }

    /** The port that a server started with {@code --port 0} listens on for TLS, or any other port of one's own. */
    static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return probe.getLocalPort();
        }
    }

    /** (Re)starts the server on the same port and socket; it must not be running. */
    void start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-server",
            "--bind", "127.0.0.1", "--port", Integer.toString(port),
            "--unixsocket", socket.toString(), "--unixsocketperm", "700",
            "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--protected-mode", "no", "--logfile", dir.resolve("redis-" + port + ".log").toString()));
        command.addAll(extraArgs);
        process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis-" + port + ".out").toFile()).start();
        // should the test JVM exit before the test's own close() (a crash of the fork, a timeout), the server goes too
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
        awaitListening(extraArgs.contains("--port") ? -1 : port);
    }

    /** Waits until the server accepts connections on {@code port} (or, for -1, until its Unix socket exists). */
    private void awaitListening(int tcpPort) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue() + ": "
                    + Files.readString(dir.resolve("redis-" + port + ".log")));
            }
            if (tcpPort < 0 ? Files.exists(socket) : accepts(tcpPort)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("redis-server did not listen within 30 s");
            }
            Thread.sleep(20);
        }
    }

    static boolean accepts(int port) {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    long pid() {
        return process.pid();
    }

    /** Kills the server at once (SIGKILL): its connections are reset, the commands in flight get no answer. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Stops the server as an administrator would (SIGTERM), then by SIGKILL if it has not exited within 10 s. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
