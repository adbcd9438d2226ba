package io.ringwire.transport.verify;

import io.ringwire.transport.RecordingLeakDetector;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs last (surefire runs classes alphabetically, and this package sorts after the others): after every other test of
 * the module has run with the leak detector at PARANOID, forces the collector and the detector's reporting, then fails
 * if any ByteBuf leaked. ringwire-netty-testsuite runs it too, from this module's test jar, after Netty's testsuite.
 */
class NoResourceLeakTest {
    @Test
    void shouldHaveLeakedNothing() throws Exception {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            // leaks are reported when the detector tracks a new object
            ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(16);
            a.release();
            b.release();
        }
        assertTrue(RecordingLeakDetector.LEAKS.isEmpty(), () -> RecordingLeakDetector.LEAKS.size() + " leak(s): "
            + String.join("\n", RecordingLeakDetector.LEAKS));
    }
}
