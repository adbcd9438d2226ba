package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * This process's limit on open descriptors ({@code RLIMIT_NOFILE}): read it, and raise it for a program that holds
 * many connections. Children started afterwards inherit the new limit.
 *
 * @param soft the limit in force
 * @param hard the most the soft limit may be raised to without privilege
 */
public record OpenFileLimit(long soft, long hard) {
    /**
     * @return the limits now
     * @throws NativeIoException if the kernel does not tell
     */
    public static OpenFileLimit current() throws NativeIoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment old = a.allocate(16, 8);
            NativeIoException.check(Libc.prlimit(Libc.RLIMIT_NOFILE, -1, -1, old), "prlimit RLIMIT_NOFILE");
            return new OpenFileLimit(old.get(JAVA_LONG, 0), old.get(JAVA_LONG, 8));
        }
    }

    /**
     * Raises the soft limit (and the hard one, when the process may: CAP_SYS_RESOURCE, and never above the kernel's
     * {@code fs.nr_open}) to at least {@code wanted}, if it is lower; never lowers anything.
     *
     * @param wanted descriptors needed
     * @return the limits afterwards: the soft one is below {@code wanted} when the hard limit could not be raised
     * @throws NativeIoException if the limits cannot be read
     */
    public static OpenFileLimit raise(long wanted) throws NativeIoException {
        OpenFileLimit now = current();
        if (now.soft >= wanted) {
            return now;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment old = a.allocate(16, 8);
            if (now.hard < wanted && Libc.prlimit(Libc.RLIMIT_NOFILE, wanted, wanted, old) == 0) {
                return current();
            }
            // not allowed past the hard limit (EPERM), or above fs.nr_open (EPERM too): as far as the hard limit
            Libc.prlimit(Libc.RLIMIT_NOFILE, Math.min(wanted, now.hard), now.hard, old);
        }
        return current();
    }
}
