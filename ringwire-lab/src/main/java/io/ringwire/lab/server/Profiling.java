package io.ringwire.lab.server;

import io.ringwire.lab.results.Profile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * The lab's side of {@code --profile}: async-profiler's library for this machine, taken from the
 * {@code tools.profiler:async-profiler} jar on the lab's class path (it ships linux-x64 and linux-arm64) into a
 * temporary file, loaded into every measured server JVM (and the redis-client workload's client JVM) at its start; the
 * JVM samples its measured window ({@link ServerProfiler}, which the client runs too) and writes
 * {@code <report dir>/profiles/<workload>-<variant>-<server or client>-r<round>.html} (the
 * flame graph) and {@code .collapsed} (the stacks, read into a {@link Profile}).
 */
public final class Profiling {
    /** The directory under the report's where profiles go. */
    public static final String DIR = "profiles";

    private final Path library;
    private final Path out;

    private Profiling(Path library, Path out) {
        this.library = library;
        this.out = out;
    }

    /**
     * @param out the report's directory
     * @return profiling into {@code out/profiles}, the library extracted
     * @throws IOException           if the library cannot be written
     * @throws IllegalStateException if async-profiler has no library for this OS and architecture
     */
    public static Profiling into(Path out) throws IOException {
        String resource = resource(System.getProperty("os.name"), System.getProperty("os.arch"));
        Path dir = Files.createTempDirectory("ringwire-lab-profiler");
        dir.toFile().deleteOnExit(); // after the file, which is registered after it
        Path lib = dir.resolve("libasyncProfiler.so");
        try (InputStream in = Profiling.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("--profile: " + resource + " is not on the lab's class path "
                    + "(tools.profiler:async-profiler)");
            }
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
        }
        lib.toFile().deleteOnExit();
        Files.createDirectories(out.resolve(DIR));
        return new Profiling(lib.toAbsolutePath(), out.toAbsolutePath());
    }

    /**
     * @return where the jar keeps the library for this OS and architecture
     * @throws IllegalStateException if it has none
     */
    public static String resource(String os, String arch) {
        if (os != null && os.toLowerCase(Locale.ROOT).startsWith("linux")) {
            switch (arch == null ? "" : arch) {
                case "amd64", "x86_64" -> {
                    return "linux-x64/libasyncProfiler.so";
                }
                case "aarch64", "arm64" -> {
                    return "linux-arm64/libasyncProfiler.so";
                }
                default -> { }
            }
        }
        throw new IllegalStateException("--profile: async-profiler ships no library for " + os + " on " + arch
            + " (linux-x64 and linux-arm64 only)");
    }

    /** @return the library, as the servers load it */
    public Path library() {
        return library;
    }

    /**
     * @return the server JVM's flags: the profiler loaded as an agent at start, idle until the lab starts it (loaded
     *         then, the JIT keeps the debug information of every compiled method from the start, so frames between
     *         safepoints resolve too, which -XX:+DebugNonSafepoints asks for as well)
     */
    public List<String> jvmFlags() {
        return List.of("-agentpath:" + library, "-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints");
    }

    /**
     * @return the path, without extension, of one run's profile files: its workload, parameters, server and round in
     *         the name, in letters, digits and dashes
     */
    public Path base(String workload, String variant, String server, int round) {
        return out.resolve(DIR).resolve(slug(workload + "-" + variant + "-" + server) + "-r" + round);
    }

    /** @return {@code file} relative to the report's directory, as a link from report.html */
    public String link(Path file) {
        return out.relativize(file.toAbsolutePath()).toString().replace('\\', '/');
    }

    /** @return {@code s} in lower-case letters, digits, dashes and underscores (× and spaces become dashes) */
    public static String slug(String s) {
        String x = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]+", "-");
        return x.replaceAll("^-+|-+$", "");
    }

    /**
     * @return whether the kernel lets a profiler see kernel frames here, and why not: perf_event_paranoid ≤ 1 (or
     *         root) and kptr_restrict 0 (kernel symbols readable)
     */
    public static String kernelFramesAllowed() {
        String paranoid = read("/proc/sys/kernel/perf_event_paranoid");
        String kptr = read("/proc/sys/kernel/kptr_restrict");
        boolean root = "root".equals(System.getProperty("user.name"));
        return String.format(Locale.ROOT, "perf_event_paranoid %s, kptr_restrict %s%s", paranoid, kptr,
            root ? ", as root" : "");
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file)).trim();
        } catch (IOException e) {
            return "?";
        }
    }
}
