package io.ringwire.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code struct io_uring_getevents_arg} (24 bytes), passed to {@code io_uring_enter} with
 * {@code IORING_ENTER_EXT_ARG} [5.11] to bound the wait with a timeout.
 *
 * <pre>
 * struct io_uring_getevents_arg {
 *     __u64 sigmask;         // 0
 *     __u32 sigmask_sz;      // 8
 *     __u32 min_wait_usec;   // 12  [6.12], was pad
 *     __u64 ts;              // 16  pointer to struct __kernel_timespec, or 0 to wait without limit
 * };
 * </pre>
 */
public final class IoUringGeteventsArg {
    private IoUringGeteventsArg() { }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_LONG.withName("sigmask"), JAVA_INT.withName("sigmask_sz"), JAVA_INT.withName("min_wait_usec"),
        JAVA_LONG.withName("ts")).withName("io_uring_getevents_arg");
    public static final int SIZE = 24;
    public static final int SIGMASK_OFFSET = 0;
    public static final int SIGMASK_SZ_OFFSET = 8;
    public static final int MIN_WAIT_USEC_OFFSET = 12;
    public static final int TS_OFFSET = 16;
}
