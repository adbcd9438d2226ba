package io.ringwire.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code struct __kernel_timespec} (16 bytes: {@code __s64 tv_sec; long long tv_nsec;}), used by TIMEOUT
 * SQEs and by {@code io_uring_getevents_arg.ts}.
 */
public final class KernelTimespec {
    private KernelTimespec() { }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec")).withName("__kernel_timespec");
    public static final int SIZE = 16;
    public static final int TV_SEC_OFFSET = 0;
    public static final int TV_NSEC_OFFSET = 8;

    /**
     * Writes a relative duration.
     *
     * @param ts    a segment of at least {@link #SIZE} bytes
     * @param nanos the duration, at least 0
     */
    public static void set(MemorySegment ts, long nanos) {
        ts.set(JAVA_LONG, TV_SEC_OFFSET, nanos / 1_000_000_000L);
        ts.set(JAVA_LONG, TV_NSEC_OFFSET, nanos % 1_000_000_000L);
    }
}
