package io.ringwire.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** This process's RLIMIT_NOFILE, for tests that need many descriptors. */
final class FileLimit {
    private static final int RLIMIT_NOFILE = 7;
    private static final MethodHandle GETRLIMIT = libc("getrlimit");
    private static final MethodHandle SETRLIMIT = libc("setrlimit");

    private FileLimit() { }

    private static MethodHandle libc(String name) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    /**
     * Raises the soft limit as far as the hard limit allows, toward {@code wanted}.
     *
     * @return the soft limit now
     */
    static long raiseTo(long wanted) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lim = arena.allocate(16, 8);
            if ((int) GETRLIMIT.invokeExact(RLIMIT_NOFILE, lim) != 0) {
                return -1;
            }
            long soft = lim.get(JAVA_LONG, 0);
            long hard = lim.get(JAVA_LONG, 8);
            if (soft < wanted) {
                lim.set(JAVA_LONG, 0, Math.min(wanted, hard));
                if ((int) SETRLIMIT.invokeExact(RLIMIT_NOFILE, lim) == 0) {
                    soft = Math.min(wanted, hard);
                }
            }
            return soft;
        }
    }
}
