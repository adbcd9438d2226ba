package io.ringwire.transport;

import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Without {@code -Dringwire.trace} (the default) no channel keeps a trace; asking for one says how to turn it on. */
class TraceOffTest extends OneLoopTestBase {
    @Test
    void offByDefaultAndSaysHowToTurnItOn() throws Exception {
        assumeFalse(Boolean.getBoolean("ringwire.traceExecution"), "the trace execution turns it on");
        assertFalse(OpTrace.ON);
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            assertNull(ch.opTrace);
            Channel c = ch;
            assertEquals("tracing is off: run with -Dringwire.trace=64 to keep each channel's last 64 operations",
                Ringwire.trace(c).get());
        } finally {
            ch.close().sync();
        }
    }
}
