package io.ringwire.uring;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Loads and stores at native addresses that a ring owns and computes from its own base and mask: SQE and CQE slots,
 * the rings' head and tail words, the iovecs and msghdr a loop gathers a write into. Nothing else may use it.
 *
 * <p>Why it exists: every access through a bounded {@link MemorySegment} kept in a field checks, each time, that the
 * segment is alive, writable, long enough and (for aligned layouts) that the address is aligned, because the JIT cannot
 * prove that the field still holds the same segment after a native store. Those checks were 3.3 % of the event loop's
 * samples on a 500-connection echo (async-profiler; Netty's io_uring transport, which writes SQEs through JNI-era
 * {@code sun.misc.Unsafe} code, spends 0.4 % there), and preparing a SEND took 6.3 ns (SqePrepBenchmark). Here the
 * segment is one {@code static final} span of the whole address space: the JIT folds its liveness, read-only and
 * length checks away, unaligned layouts need no alignment check, and what is left is the store itself (1.7 % of the
 * loop's samples, 2.5-3.7 ns per SEND). This is Agrona's {@code UnsafeBuffer} without {@code sun.misc.Unsafe}, and
 * its cost is the same: a wrong address is not an exception but a crash, so every caller derives its addresses from a
 * mapping it holds for its whole life ({@code base + (index & mask) * size}).
 *
 * <p>The acquire/release/opaque methods use the aligned layout the kernel's C11 atomics need (ring head, tail, flags).
 */
public final class RawMemory {
    private RawMemory() { }

    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle ATOMIC_INT = JAVA_INT.varHandle();
    // the layouts' handles, invoked directly: MemorySegment.get/set would add a call (and a lookup of the layout's
    // handle) above each, and these run deep inside inlined code, where C2 stops inlining at a depth of 15
    private static final VarHandle BYTE = JAVA_BYTE.varHandle();
    private static final VarHandle SHORT = JAVA_SHORT_UNALIGNED.varHandle();
    private static final VarHandle INT = JAVA_INT_UNALIGNED.varHandle();
    private static final VarHandle LONG = JAVA_LONG_UNALIGNED.varHandle();

    /**
     * @param address where
     * @return the byte there
     */
    public static byte getByte(long address) {
        return (byte) BYTE.get(ALL, address);
    }

    /**
     * @param address where
     * @param value   the byte to store
     */
    public static void putByte(long address, byte value) {
        BYTE.set(ALL, address, value);
    }

    /**
     * @param address where
     * @return the 16-bit value there
     */
    public static short getShort(long address) {
        return (short) SHORT.get(ALL, address);
    }

    /**
     * @param address where
     * @param value   the 16-bit value to store
     */
    public static void putShort(long address, short value) {
        SHORT.set(ALL, address, value);
    }

    /**
     * @param address where
     * @return the 32-bit value there
     */
    public static int getInt(long address) {
        return (int) INT.get(ALL, address);
    }

    /**
     * @param address where
     * @param value   the 32-bit value to store
     */
    public static void putInt(long address, int value) {
        INT.set(ALL, address, value);
    }

    /**
     * @param address where
     * @return the 64-bit value there
     */
    public static long getLong(long address) {
        return (long) LONG.get(ALL, address);
    }

    /**
     * @param address where
     * @param value   the 64-bit value to store
     */
    public static void putLong(long address, long value) {
        LONG.set(ALL, address, value);
    }

    /**
     * @param address a 4-byte aligned word the kernel writes with release semantics
     * @return its value, with the writes before the kernel's store visible (C11 load-acquire)
     */
    public static int getIntAcquire(long address) {
        return (int) ATOMIC_INT.getAcquire(ALL, address);
    }

    /**
     * @param address a 4-byte aligned word
     * @return its value, atomically but with no ordering (C11 relaxed)
     */
    public static int getIntOpaque(long address) {
        return (int) ATOMIC_INT.getOpaque(ALL, address);
    }

    /**
     * @param address a 4-byte aligned word the kernel reads with acquire semantics
     * @param value   stored after every write before it (C11 store-release)
     */
    public static void putIntRelease(long address, int value) {
        ATOMIC_INT.setRelease(ALL, address, value);
    }

    /**
     * Copies {@code bytes} bytes between two native addresses (one memcpy, no segment per copy).
     *
     * @param from  the source address
     * @param to    the destination address
     * @param bytes how many
     */
    public static void copy(long from, long to, long bytes) {
        MemorySegment.copy(ALL, from, ALL, to, bytes);
    }

    /**
     * A direct ByteBuffer over {@code bytes} bytes at {@code address}, which the caller keeps mapped for as long as
     * the buffer is used (the binding makes every segment of unknown size it hands out: the transport needs no native
     * access of its own).
     *
     * @param address where the memory starts
     * @param bytes   its length, at most {@link Integer#MAX_VALUE}
     * @return a writable view of it
     */
    public static java.nio.ByteBuffer byteBuffer(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes).asByteBuffer();
    }
}
