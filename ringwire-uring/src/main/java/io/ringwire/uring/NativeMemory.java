package io.ringwire.uring;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts every byte of native memory the binding holds (ring mappings, buffer rings, scratch structs), so that tests
 * and the lab can check that it all comes back.
 */
public final class NativeMemory {
    private NativeMemory() { }

    private static final AtomicLong HELD = new AtomicLong();

    static void reserve(long bytes) {
        HELD.addAndGet(bytes);
    }

    static void release(long bytes) {
        HELD.addAndGet(-bytes);
    }

    /** @return bytes of native memory the binding holds right now, over all rings and buffer rings */
    public static long heldBytes() {
        return HELD.get();
    }
}
