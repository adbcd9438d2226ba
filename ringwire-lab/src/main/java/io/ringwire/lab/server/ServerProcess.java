package io.ringwire.lab.server;

import io.ringwire.lab.host.CServers;
import io.ringwire.lab.host.DebianTool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A competitor's server in a fresh JVM ({@link LabServer}), pinned to CPU 1 when the machine has two cores or more,
 * and the lab's line to it: {@link #resetStats()} at a window's start, {@link #stats()} at its end, CPU time and peak
 * RSS read from {@code /proc}. {@link #close()} ends it (this process started it; nothing else is touched).
 */
public final class ServerProcess implements AutoCloseable {
    private static final String TASKSET = findTaskset();

    private final Process process;
    private final OutputStream control;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final InetSocketAddress address;

    /** The server's other listeners, by the names its READY line gave them. */
    private final Map<String, Integer> otherPorts = new java.util.concurrent.ConcurrentHashMap<>();

    private ServerProcess(Process process, InetSocketAddress address) {
        this.process = process;
        this.control = process.getOutputStream();
        this.address = address;
    }

    /**
     * @param competitor which server
     * @param protocol   what it speaks
     * @param threads    event-loop threads for the Netty servers
     * @return the server, accepting connections
     * @throws IOException if it does not start; the message carries its output
     */
    public static ServerProcess start(Competitor competitor, Protocol protocol, int threads) throws IOException {
        return start(competitor, protocol, threads, ServerJvm.DEFAULT);
    }

    /** @return the command line of {@code competitor}'s server JVM on {@code port} */
    public static List<String> command(Competitor competitor, int port, Protocol protocol, int threads, ServerJvm jvm) {
        return command(competitor, port, protocol, threads, jvm, List.of());
    }

    /**
     * @param profiler the flags that load a profiler ({@link Profiling#jvmFlags}); empty for none
     * @return the command line of {@code competitor}'s server JVM on {@code port}
     */
    public static List<String> command(Competitor competitor, int port, Protocol protocol, int threads, ServerJvm jvm,
                                       List<String> profiler) {
        List<String> cmd = new ArrayList<>();
        if (canPin()) {
            cmd.addAll(List.of(TASKSET, "-c", "1"));
        }
        if (competitor.inC()) { // one thread, no JVM: echo, or frames echoed frame by frame (PAUSING as FRAMES)
            cmd.addAll(List.of(CServers.binary(competitor.label()).toString(), Integer.toString(port),
                protocol == Protocol.ECHO ? "echo" : "frames"));
            return cmd;
        }
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvm.flags());
        // extra server JVM flags for profiling, e.g. -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit
        cmd.addAll(ServerJvm.extraFlags());
        cmd.addAll(profiler);
        cmd.addAll(competitor.properties()); // a variant's own setting (ringwire-minwait)
        cmd.addAll(List.of(
            "-cp", System.getProperty("java.class.path"), LabServer.class.getName(), competitor.label(),
            Integer.toString(port), Integer.toString(threads), protocol.name().toLowerCase(java.util.Locale.ROOT)));
        return cmd;
    }

    /**
     * @param competitor which server
     * @param protocol   what it speaks
     * @param threads    event-loop threads for the Netty servers
     * @param jvm        the JVM flags, the same for every server
     * @return the server, accepting connections
     * @throws IOException if it does not start; the message carries its output
     */
    public static ServerProcess start(Competitor competitor, Protocol protocol, int threads, ServerJvm jvm)
        throws IOException {
        return start(competitor, protocol, threads, jvm, List.of());
    }

    /**
     * @param profiler the flags that load a profiler into the server ({@link Profiling#jvmFlags}); empty for none
     * @return the server, accepting connections
     * @throws IOException if it does not start; the message carries its output
     */
    public static ServerProcess start(Competitor competitor, Protocol protocol, int threads, ServerJvm jvm,
                                      List<String> profiler) throws IOException {
        int port = freePort();
        return start(competitor.label() + " server", command(competitor, port, protocol, threads, jvm, profiler),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    /**
     * Starts a measured process that speaks the servers' line protocol on stdin and stdout ({@link ServerStats}): one
     * of the lab's servers, or the redis-client workload's client JVM.
     *
     * @param name    what it is, for errors
     * @param command its command line
     * @param address where it listens, or for a client the server it talks to
     * @return the process, once it printed READY
     * @throws IOException if it does not start; the message carries its output
     */
    public static ServerProcess start(String name, List<String> command, InetSocketAddress address)
        throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        ServerProcess server = new ServerProcess(p, address);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("READY")) {
                    server.otherPorts.putAll(otherPorts(line));
                    Thread reader = new Thread(() -> server.readReplies(out), "lab-server-output");
                    reader.setDaemon(true);
                    reader.start();
                    return server;
                }
                seen.append(line).append('\n');
            }
        } catch (IOException | RuntimeException e) {
            server.close(); // never leave a server running that nobody will stop
            throw e;
        }
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.close();
        throw new IOException(name + " did not start (exit "
            + (p.isAlive() ? "?" : p.exitValue()) + "):\n" + seen);
    }

    /** Where servers' log lines go (appended), from {@code RINGWIRE_LAB_SERVER_LOG}; null: dropped. */
    private static final String SERVER_LOG = System.getenv("RINGWIRE_LAB_SERVER_LOG");

    private void readReplies(BufferedReader out) {
        java.io.PrintWriter log = null;
        try {
            if (SERVER_LOG != null && !SERVER_LOG.isEmpty()) {
                log = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(java.nio.file.Path.of(SERVER_LOG),
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND), true);
                log.println("--- server pid " + process.pid());
            }
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("STATS") || line.startsWith("LIVE") || line.startsWith("MEMORY")
                    || line.startsWith("CONNS") || line.startsWith("PROFILE ") || line.startsWith("LOAD")
                    || line.startsWith("FINISHED")
                    || line.equals("OK") || line.startsWith("ERROR")) {
                    replies.add(line);
                } else if (log != null) {
                    log.println(line);
                }
                // otherwise a server's log line is read and dropped, so the pipe never fills
            }
        } catch (IOException ignored) {
            // the server ended
        } finally {
            if (log != null) {
                log.close();
            }
        }
    }

    /** @return where it listens */
    public InetSocketAddress address() {
        return address;
    }

    /**
     * @param name a listener's name on the READY line (a {@link Protocol#MIXED} server's {@code files}, ...)
     * @return where that listener is
     * @throws IllegalStateException if the server named no such listener
     */
    public InetSocketAddress address(String name) {
        Integer port = otherPorts.get(name);
        if (port == null) {
            throw new IllegalStateException("the server named no '" + name + "' listener, only " + otherPorts.keySet());
        }
        return new InetSocketAddress(address.getAddress(), port);
    }

    /** @return the {@code name=port} pairs after a READY line's port */
    public static Map<String, Integer> otherPorts(String readyLine) {
        Map<String, Integer> ports = new java.util.LinkedHashMap<>();
        String[] words = readyLine.trim().split("\\s+");
        for (int i = 2; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                ports.put(words[i].substring(0, eq), Integer.parseInt(words[i].substring(eq + 1)));
            }
        }
        return ports;
    }

    /** @return its process id */
    public long pid() {
        return process.pid();
    }

    /** Starts the server's window: its peaks and GC counts start again. */
    public void resetStats() {
        ask("RESET");
    }

    /** @return what the server saw since {@link #resetStats()}; empty if it did not answer */
    public Map<String, Double> stats() {
        return values("STATS", 10);
    }

    /**
     * @return the heap the server has in use after a full collection ({@code liveHeapMiB}); empty if it did not
     *         answer
     */
    public Map<String, Double> live() {
        return values("LIVE", 60); // a full collection: seconds on a large heap
    }

    /**
     * @param command a line of the protocol whose answer starts with the same word, e.g. {@code STATS}
     * @param seconds how long to wait for it
     * @return the {@code key=value} figures of the server's reply to {@code command}; empty if it did not answer
     */
    public Map<String, Double> values(String command, int seconds) {
        String reply = ask(command, seconds);
        return reply == null || !reply.startsWith(command) ? Map.of() : ServerStats.parse(reply);
    }

    /**
     * @return what the server holds live after a full collection (two, with a class histogram between), with its
     *         resident set; null if it did not answer
     */
    public MemorySnapshot memory() {
        String reply = ask("MEMORY", 60);
        return reply == null || !reply.startsWith("MEMORY") ? null
            : MemorySnapshot.parse(reply, ProcessStats.rssKiB(pid()));
    }

    /** @return connections the server holds in direct descriptors, which no fd counts; 0 if it did not answer */
    public long directDescriptors() {
        return values("CONNS", 10).getOrDefault("directDescriptors", 0.0).longValue();
    }

    /**
     * Starts async-profiler in the server, which must have been started with {@link Profiling#jvmFlags}.
     *
     * @param library the profiler's library, as given to the server JVM
     * @return the engine that runs ({@code cpu-clock}, or {@code itimer} with why)
     * @throws IOException if the server could not start it
     */
    public String startProfiler(Path library) throws IOException {
        return profileReply("PROFILE-START " + library, 30).substring("engine=".length());
    }

    /** Stops the server's profiler; its samples stay until {@link #dumpProfile}. */
    public void stopProfiler() throws IOException {
        profileReply("PROFILE-STOP", 30);
    }

    /**
     * Writes the stopped profiler's samples to {@code base.collapsed} and {@code base.html}.
     *
     * @param base the files' path without extension
     */
    public void dumpProfile(Path base) throws IOException {
        profileReply("PROFILE-DUMP " + base.toAbsolutePath(), 120); // a flame graph of many stacks: seconds
    }

    private String profileReply(String command, int seconds) throws IOException {
        String reply = ask(command, seconds);
        if (reply == null || !reply.startsWith("PROFILE ")) {
            throw new IOException("server " + process.pid() + ": '" + command + "' answered "
                + (reply == null ? "nothing within " + seconds + " s" : "'" + reply + "'"));
        }
        return reply.substring("PROFILE ".length());
    }

    private String ask(String command) {
        return ask(command, 10);
    }

    private String ask(String command, int seconds) {
        try {
            control.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
            control.flush();
            return replies.poll(seconds, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("server " + process.pid() + " did not take '" + command + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** @return a port free on the loopback address right now */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** @return whether servers are pinned to CPU 1: the machine has two cores or more and taskset exists */
    public static boolean canPin() {
        return onlineCpus() >= 2 && TASKSET != null;
    }

    /** CPUs online on the machine (not this process's affinity: the launcher pins the lab itself to CPU 0). */
    public static int onlineCpus() {
        try {
            int n = 0;
            for (String part : Files.readString(Path.of("/sys/devices/system/cpu/online")).trim().split(",")) {
                String[] r = part.split("-");
                n += r.length == 1 ? 1 : Integer.parseInt(r[1]) - Integer.parseInt(r[0]) + 1;
            }
            return n;
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    private static String findTaskset() {
        return DebianTool.onPath("taskset");
    }
}
