package io.ringwire.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code struct io_uring_params} (120 bytes) with its {@code io_sqring_offsets} and
 * {@code io_cqring_offsets}: what {@code io_uring_setup} reads (entries, flags) and writes back (sizes, features, the
 * offsets of the ring fields inside the mmap-ed rings).
 *
 * <pre>
 * struct io_uring_params {
 *     __u32 sq_entries; __u32 cq_entries; __u32 flags; __u32 sq_thread_cpu; __u32 sq_thread_idle;
 *     __u32 features; __u32 wq_fd; __u32 resv[3];
 *     struct io_sqring_offsets sq_off;  // 40: head tail ring_mask ring_entries flags dropped array resv1, user_addr
 *     struct io_cqring_offsets cq_off;  // 80: head tail ring_mask ring_entries overflow cqes flags resv1, user_addr
 * };
 * </pre>
 */
public final class IoUringParams {
    private IoUringParams() { }

    public static final StructLayout SQ_OFFSETS = MemoryLayout.structLayout(
        JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
        JAVA_INT.withName("ring_entries"), JAVA_INT.withName("flags"), JAVA_INT.withName("dropped"),
        JAVA_INT.withName("array"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"))
        .withName("io_sqring_offsets");

    public static final StructLayout CQ_OFFSETS = MemoryLayout.structLayout(
        JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
        JAVA_INT.withName("ring_entries"), JAVA_INT.withName("overflow"), JAVA_INT.withName("cqes"),
        JAVA_INT.withName("flags"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"))
        .withName("io_cqring_offsets");

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_INT.withName("sq_entries"), JAVA_INT.withName("cq_entries"), JAVA_INT.withName("flags"),
        JAVA_INT.withName("sq_thread_cpu"), JAVA_INT.withName("sq_thread_idle"), JAVA_INT.withName("features"),
        JAVA_INT.withName("wq_fd"), MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
        SQ_OFFSETS.withName("sq_off"), CQ_OFFSETS.withName("cq_off")).withName("io_uring_params");

    public static final int SIZE = 120;
    public static final int SQ_ENTRIES_OFFSET = 0;
    public static final int CQ_ENTRIES_OFFSET = 4;
    public static final int FLAGS_OFFSET = 8;
    public static final int FEATURES_OFFSET = 20;
    public static final int SQ_OFF = 40;
    public static final int CQ_OFF = 80;

    // offsets inside io_sqring_offsets (relative to SQ_OFF)
    public static final int SQ_OFF_HEAD = 0;
    public static final int SQ_OFF_TAIL = 4;
    public static final int SQ_OFF_RING_MASK = 8;
    public static final int SQ_OFF_RING_ENTRIES = 12;
    public static final int SQ_OFF_FLAGS = 16;
    public static final int SQ_OFF_DROPPED = 20;
    public static final int SQ_OFF_ARRAY = 24;

    // offsets inside io_cqring_offsets (relative to CQ_OFF)
    public static final int CQ_OFF_HEAD = 0;
    public static final int CQ_OFF_TAIL = 4;
    public static final int CQ_OFF_RING_MASK = 8;
    public static final int CQ_OFF_RING_ENTRIES = 12;
    public static final int CQ_OFF_OVERFLOW = 16;
    public static final int CQ_OFF_CQES = 20;
    public static final int CQ_OFF_FLAGS = 24;
}
