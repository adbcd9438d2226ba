package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A growable ring's bookkeeping when it shrinks ({@link BufferRing#shrink}): the buffers above the target stay out of
 * the ring as they come back, the last one back ends the shrink and its pages read as zeros afterwards (given back to
 * the system), and {@link BufferRing#grow()} during a shrink puts the ones kept out back first. The buffers come back
 * here without a receive having taken them; the transport's {@code RingShrinkTest} has the kernel take them.
 */
class BufferRingShrinkTest {
    private static final int SIZE = 64 * 1024; // one buffer is a whole number of pages of either size (4 or 64 KiB)

    private static void touch(BufferRing buffers, int bid) {
        MemorySegment b = buffers.segment().asSlice((long) bid * SIZE, SIZE);
        for (long at = 0; at < SIZE; at += 4096) {
            b.set(JAVA_BYTE, at, (byte) 0x5a);
        }
    }

    private static byte first(BufferRing buffers, int bid) {
        return buffers.segment().get(JAVA_BYTE, (long) bid * SIZE);
    }

    @Test
    void theBuffersAboveTheTargetStayOutAsTheyComeBackAndTheirPagesAreGivenBack() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build();
             BufferRing buffers = BufferRing.registerGrowable(ring, (short) 5, 8, SIZE, 8)) {
            for (int bid = 0; bid < 8; bid++) {
                touch(buffers, bid);
            }
            assertFalse(buffers.shrink(8), "no smaller than it is");
            assertTrue(buffers.shrink(2));
            assertTrue(buffers.shrinking());
            assertFalse(buffers.shrink(1), "one shrink at a time");
            assertEquals(8, buffers.provided(), "nothing leaves before it comes back");
            for (int bid = 7; bid >= 3; bid--) {
                buffers.release(bid, 100, 0);
            }
            buffers.release(0, 100, 0); // below the target: back into the ring as always
            assertTrue(buffers.shrinking(), "buffer 2 is still out");
            assertEquals(0, buffers.releasedBytes());
            assertEquals(0x5a, first(buffers, 7), "pages stay until the shrink ends");
            buffers.release(2, 100, 0);
            assertFalse(buffers.shrinking());
            assertEquals(2, buffers.provided());
            assertEquals(6L * SIZE, buffers.releasedBytes());
            for (int bid = 2; bid < 8; bid++) {
                assertEquals(0, first(buffers, bid), "buffer " + bid + "'s pages were given back: they read zeros");
            }
            assertEquals(0x5a, first(buffers, 1), "the buffers kept are untouched");
            assertTrue(buffers.grow());
            assertEquals(4, buffers.provided(), "it doubles again from its smaller size");
        }
    }

    @Test
    void growingDuringAShrinkPutsTheBuffersKeptOutBackFirst() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build();
             BufferRing buffers = BufferRing.registerGrowable(ring, (short) 6, 8, SIZE, 4)) {
            assertTrue(buffers.shrink(2));
            buffers.release(3, 100, 0); // kept out; buffer 2 is not back yet
            assertTrue(buffers.grow(), "the ring ran dry: buffer 3 goes back in");
            assertFalse(buffers.shrinking(), "the shrink is over");
            assertEquals(4, buffers.provided());
            assertEquals(0, buffers.releasedBytes());
            buffers.release(2, 100, 0); // back into the ring as any other
            assertEquals(4, buffers.provided());
            assertTrue(buffers.grow());
            assertEquals(8, buffers.provided(), "and it grows on as before");
        }
    }
}
