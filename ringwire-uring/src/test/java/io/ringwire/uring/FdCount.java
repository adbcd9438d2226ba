package io.ringwire.uring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Counts this process's open file descriptors ({@code /proc/self/fd}). */
final class FdCount {
    private FdCount() { }

    static long now() {
        return list().size();
    }

    /** @return fd number to what it points at, for a readable failure message */
    static Map<Integer, String> list() {
        Map<Integer, String> fds = new TreeMap<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            s.forEach(p -> {
                try {
                    fds.put(Integer.parseInt(p.getFileName().toString()), Files.readSymbolicLink(p).toString());
                } catch (IOException gone) {
                    // the fd of the directory listing itself, closed by now
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return fds;
    }
}
