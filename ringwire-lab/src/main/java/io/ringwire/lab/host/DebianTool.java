package io.ringwire.lab.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A load generator nobody here wrote (redis-benchmark, wrk): found on PATH, or installed with apt-get as root. */
public final class DebianTool {
    private DebianTool() { }

    /**
     * @param workload the workload that needs it, for the notes
     * @param program  the executable, e.g. {@code wrk}
     * @param pkg      the Debian package that has it, e.g. {@code wrk}
     * @param note     receives what was done or why the workload cannot run
     * @return the program's path, or null (the workload is skipped; {@code note} said why)
     */
    public static String locate(String workload, String program, String pkg, Consumer<String> note) {
        String found = onPath(program);
        if (found != null) {
            return found;
        }
        String aptGet = onPath("apt-get");
        boolean root = "root".equals(System.getProperty("user.name"));
        if (aptGet == null || !root) {
            note.accept(workload + ": skipped: " + program + " is not installed (Debian/Ubuntu: sudo apt-get install "
                + pkg + ")");
            return null;
        }
        note.accept(workload + ": installing " + pkg + " for " + program + " (apt-get install -y " + pkg + ") ...");
        try {
            Output out = run(List.of(aptGet, "install", "-y", "-q", pkg), 600);
            if (out.exit() != 0) {
                note.accept(workload + ": skipped: apt-get install " + pkg + " failed:\n" + out.text().strip());
                return null;
            }
        } catch (IOException e) {
            note.accept(workload + ": skipped: could not run apt-get: " + e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        found = onPath(program);
        if (found == null) {
            note.accept(workload + ": skipped: " + pkg + " installed but " + program + " is not on PATH");
        }
        return found;
    }

    /**
     * What a program printed (stdout and stderr together) and its exit code.
     *
     * @param exit its exit code
     * @param text its output
     */
    public record Output(int exit, String text) { }

    /**
     * Runs a program to its end, its output collected in a temporary file (so the time limit holds even when it
     * hangs without closing its output); ended by force if it outlives {@code seconds} or this thread is interrupted.
     *
     * @param cmd     the command line
     * @param seconds the most it may take
     * @return its exit code and output
     * @throws IOException          if it cannot start, or did not finish in time (the message names the command)
     * @throws InterruptedException if interrupted while waiting (the program is ended first)
     */
    public static Output run(List<String> cmd, long seconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile("ringwire-lab-tool", ".out");
        Process p = null;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new IOException("did not finish in " + seconds + " s: " + String.join(" ", cmd));
            }
            return new Output(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    /**
     * @param name a program
     * @return its path on PATH, or null
     */
    public static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
