package io.ringwire.lab.server;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A process's CPU clock, read with {@code clock_gettime} (the FFM API): the scheduler's own count in nanoseconds of
 * every thread's CPU time (ended threads too), not sampled ticks. The kernel lets any process read another's
 * process-wide CPU clock, so the lab reads its servers' from outside; /proc's 10 ms ticks are the fallback where this
 * clock cannot be read.
 */
public final class ProcessCpuClock {
    private ProcessCpuClock() { }

    /** {@code clock_gettime(clockid_t, struct timespec *)}. */
    private static final MethodHandle CLOCK_GETTIME = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    /** {@code CLOCK_PROCESS_CPUTIME_ID}: the calling process's own CPU clock. */
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2;

    /** {@code CPUCLOCK_SCHED}: the scheduler's count, the clock type of a process CPU clock id. */
    private static final int CPUCLOCK_SCHED = 2;

    /**
     * @param pid a process
     * @return CPU time it has used so far, all its threads (ended ones too), in nanoseconds; -1 when the clock cannot
     *         be read (no such process)
     */
    public static long nanos(long pid) {
        return read((int) ((~pid) << 3) | CPUCLOCK_SCHED); // MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    }

    /**
     * @return CPU time this process has used so far, as it reads its own clock: the same count {@link #nanos} reads
     *         from outside; -1 when the clock cannot be read
     */
    public static long ownNanos() {
        return read(CLOCK_PROCESS_CPUTIME_ID);
    }

    private static long read(int clock) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(16, 8);
            int r = (int) CLOCK_GETTIME.invokeExact(clock, ts);
            return r < 0 ? -1 : ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8);
        } catch (Throwable t) {
            throw new IllegalStateException("clock_gettime", t);
        }
    }
}
