package io.ringwire.lab.host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The lab's C reference servers, c-io_uring and c-epoll (the competitors of those names): their sources ship in the
 * lab (src/main/c), and are compiled here with gcc (and liburing for the io_uring one) the first time a lab run asks
 * for them, into {@code c-servers/<hash of the sources>/} beside the lab's classes or jar ({@code target/}), where
 * later runs find them. gcc and liburing-dev are installed with apt-get when missing and the lab runs as root, as
 * redis-tools and wrk are ({@link DebianTool}); elsewhere the C servers are skipped with a note saying why.
 */
public final class CServers {
    private CServers() { }

    /** The sources, as resources of this package's {@code c} folder. */
    static final List<String> SOURCES = List.of("lab_server.h", "epoll_server.c", "uring_server.c");

    /** The Debian packages the build needs. */
    static final List<String> PACKAGES = List.of("gcc", "liburing-dev");

    /** The io_uring server's name (its executable's, and its competitor's label). */
    public static final String C_IO_URING = "c-io_uring";
    /** The epoll server's name. */
    public static final String C_EPOLL = "c-epoll";

    /** The built servers by name, or why they cannot be; set once per JVM. */
    private static Built built;

    /**
     * @param binaries the executables, by name (empty if the build failed)
     * @param problem  why they are not there, or null
     */
    public record Built(Map<String, Path> binaries, String problem) { }

    /**
     * @param name one of the C servers ({@link #C_IO_URING}, {@link #C_EPOLL})
     * @return its executable
     * @throws IllegalStateException if it could not be built (the message says why)
     */
    public static Path binary(String name) {
        Built b = build(s -> { });
        Path p = b.binaries().get(name);
        if (p == null) {
            throw new IllegalStateException(name + " is unavailable: " + b.problem());
        }
        return p;
    }

    /** Builds both servers, once per JVM (later calls return the first's outcome). */
    public static synchronized Built build(Consumer<String> note) {
        if (built == null) {
            built = buildNow(cacheDirectory(), note);
        }
        return built;
    }

    /** @return where built servers are kept: {@code c-servers} beside the lab's classes or jar, else the temp dir */
    static Path cacheDirectory() {
        try {
            Path code = Path.of(CServers.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path parent = code.toAbsolutePath().getParent();
            if (parent != null && Files.isWritable(parent)) {
                return parent.resolve("c-servers");
            }
        } catch (Exception e) {
            // no code source (an unusual class loader): the temp dir
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "ringwire-lab-c-servers");
    }

    /**
     * Compiles the servers into {@code dir/<hash>/} unless they are there already.
     *
     * @param dir  the cache
     * @param note receives what was done, or why nothing could be
     * @return the binaries, or why there are none
     */
    static Built buildNow(Path dir, Consumer<String> note) {
        try {
            Map<String, byte[]> sources = new java.util.LinkedHashMap<>();
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String name : SOURCES) {
                try (InputStream in = CServers.class.getResourceAsStream("c/" + name)) {
                    if (in == null) {
                        return fail(note, "their source " + name + " is not among the lab's resources");
                    }
                    byte[] b = in.readAllBytes();
                    sources.put(name, b);
                    sha.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    sha.update(b);
                }
            }
            Path home = dir.resolve(HexFormat.of().formatHex(sha.digest()).substring(0, 16));
            Map<String, Path> binaries = Map.of(C_EPOLL, home.resolve(C_EPOLL), C_IO_URING,
                home.resolve(C_IO_URING));
            if (binaries.values().stream().allMatch(Files::isExecutable)) {
                return new Built(binaries, null);
            }
            Files.createDirectories(home);
            for (Map.Entry<String, byte[]> s : sources.entrySet()) {
                Files.write(home.resolve(s.getKey()), s.getValue());
            }
            String missing = missingTools();
            if (missing != null) {
                String installed = install(note);
                if (installed != null) {
                    return fail(note, missing + "; " + installed);
                }
                missing = missingTools();
                if (missing != null) {
                    return fail(note, missing + " after installing " + String.join(" ", PACKAGES));
                }
            }
            String gcc = DebianTool.onPath("gcc");
            for (Map.Entry<String, Path> e : binaries.entrySet()) {
                boolean uring = e.getKey().equals(C_IO_URING);
                String source = home.resolve(uring ? "uring_server.c" : "epoll_server.c").toString();
                Path tmp = home.resolve(e.getValue().getFileName() + ".tmp");
                List<String> cmd = new ArrayList<>(List.of(gcc, "-O2", "-Wall", "-o", tmp.toString(), source));
                if (uring) {
                    cmd.add("-luring");
                }
                cmd.add("-lpthread");
                DebianTool.Output out = DebianTool.run(cmd, 120);
                if (out.exit() != 0) {
                    return fail(note, "gcc failed on " + source + ":\n" + out.text().strip());
                }
                Files.move(tmp, e.getValue(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            note.accept("c-io_uring, c-epoll: built with gcc into " + home);
            return new Built(binaries, null);
        } catch (IOException | NoSuchAlgorithmException e) {
            return fail(note, "could not build them: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(note, "interrupted while building them");
        }
    }

    private static Built fail(Consumer<String> note, String why) {
        note.accept("c-io_uring, c-epoll: skipped: " + why);
        return new Built(Map.of(), why);
    }

    /** @return what the build lacks (gcc, liburing's header), or null */
    static String missingTools() {
        List<String> missing = new ArrayList<>();
        if (DebianTool.onPath("gcc") == null) {
            missing.add("gcc is not installed");
        }
        if (!Files.exists(Path.of("/usr/include/liburing.h"))) {
            missing.add("liburing's header is not installed (/usr/include/liburing.h)");
        }
        return missing.isEmpty() ? null : String.join(", ", missing);
    }

    /** Installs {@link #PACKAGES} with apt-get. @return null if it did, else why not */
    private static String install(Consumer<String> note) throws IOException, InterruptedException {
        String aptGet = DebianTool.onPath("apt-get");
        if (aptGet == null || !"root".equals(System.getProperty("user.name"))) {
            return "the lab is not root with apt-get (Debian/Ubuntu: sudo apt-get install "
                + String.join(" ", PACKAGES) + ")";
        }
        note.accept("c-io_uring, c-epoll: installing " + String.join(" ", PACKAGES) + " (apt-get install -y "
            + String.join(" ", PACKAGES) + ") ...");
        List<String> cmd = new ArrayList<>(List.of(aptGet, "install", "-y", "-q"));
        cmd.addAll(PACKAGES);
        DebianTool.Output out = DebianTool.run(cmd, 600);
        return out.exit() == 0 ? null : "apt-get install " + String.join(" ", PACKAGES) + " failed:\n"
            + out.text().strip();
    }
}
