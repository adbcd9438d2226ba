package io.ringwire.transport.fallback;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Runs a main class of the calling module's tests in a child JVM under the repository's seccomp launcher
 * ({@code seccomp/testing/SeccompLauncher.java}), which filters io_uring's system calls as a Docker seccomp profile
 * decides them, before the child JVM starts: {@code seccomp/testing/moby-default.json} (Docker's default, which
 * refuses them with EPERM) or {@code seccomp/docker-default-io_uring.json} (the profile Ringwire ships).
 */
public final class SeccompChild {
    public static final String MOBY_DEFAULT = "seccomp/testing/moby-default.json";
    public static final String SHIPPED = "seccomp/docker-default-io_uring.json";

    /** What the child printed and how it ended. */
    public record Result(int exitCode, String out) {
        /** @return the value of the child's line {@code key=value}, or {@code null} */
        public String get(String key) {
            return out.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                .findFirst().orElse(null);
        }
    }

    private SeccompChild() { }

    /** The repository's root: the first directory up from the module's that has the seccomp launcher. */
    public static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("seccomp/testing/SeccompLauncher.java"))) {
                return p;
            }
        }
        throw new IllegalStateException("no seccomp/testing/SeccompLauncher.java above " + Path.of("").toAbsolutePath());
    }

    /**
     * @param profile   a profile's path from the repository's root
     * @param keepOnPath which of this JVM's class-path entries the child gets
     * @param mainClass the child's main class
     * @param args      its arguments
     */
    public static Result run(String profile, Predicate<String> keepOnPath, Class<?> mainClass, String... args)
        throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // surefire runs the tests from a manifest-only jar; the entries themselves are in this property
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String childCp = Arrays.stream(cp.split(File.pathSeparator)).filter(keepOnPath)
            .collect(Collectors.joining(File.pathSeparator));
        Path root = root();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
            root.resolve("seccomp/testing/SeccompLauncher.java").toString(),
            "--profile", root.resolve(profile).toString(), "--",
            java, "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1",
            "-Dio.netty.leakDetection.level=paranoid", "-cp", childCp, mainClass.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            // a guard against a hang only: the child ends by itself in seconds
            byte[] out;
            try (var in = process.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                throw new AssertionError("the child did not end");
            }
            return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
        }
    }
}
