package io.ringwire.lab.server;

import io.ringwire.lab.host.DebianTool;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The redis-client workload's server: one real {@code redis-server} (Debian's package), started fresh for every run
 * on a free loopback port, without persistence, pinned to CPU 0 when the machine has two cores (the measured client on
 * CPU 1, as the servers of the other workloads are). It is this process's child, ended by its PID ({@link #close()}).
 */
public final class RedisServerProcess implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServerProcess(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /**
     * @param note receives what was done (an install) or why the workload cannot run
     * @return redis-server's path (installed with apt-get as root if missing), or null: skip the workload
     */
    public static String locate(Consumer<String> note) {
        return DebianTool.locate("redis-client", "redis-server", "redis-server", note);
    }

    /**
     * @param program redis-server's path
     * @return the server, answering PING
     * @throws IOException if it does not start within 30 s; the message carries its output
     */
    public static RedisServerProcess start(String program) throws IOException {
        int port = ServerProcess.freePort();
        Path dir = Files.createTempDirectory("ringwire-lab-redis");
        List<String> cmd = new ArrayList<>();
        if (ServerProcess.canPin()) {
            cmd.addAll(List.of(DebianTool.onPath("taskset"), "-c", "0"));
        }
        // one thread of I/O (redis' default), no snapshot or log to disk: the run's work is the commands only
        cmd.addAll(List.of(program, "--bind", "127.0.0.1", "--port", Integer.toString(port), "--dir", dir.toString(),
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no", "--logfile", ""));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.out").toFile()).start();
        RedisServerProcess server = new RedisServerProcess(p, port, dir);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!server.answersPing()) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("redis-server did not start (" + (p.isAlive() ? "no answer in 30 s"
                        : "exit " + p.exitValue()) + "): " + String.join(" ", cmd) + "\n"
                        + Files.readString(dir.resolve("redis.out")).strip());
                }
                Thread.sleep(20);
            }
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        } catch (InterruptedException e) {
            server.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while redis-server started", e);
        }
    }

    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(address(), 1000);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readNBytes(7), StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    /** @return where it listens */
    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** @return its process id */
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary directory left behind: nothing to measure there
        }
    }
}
