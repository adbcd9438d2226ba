package example.echo.classpath;

import example.echo.Echo;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.Version;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On the class path, with the Netty version the build names: the echo works and its bytes went through Ringwire's
 * loop (its counters), not a fallback.
 */
class ClassPathEchoTest {
    @Test
    void bytesGoThroughRingwireOnTheClassPath() throws Exception {
        assertFalse(Ringwire.class.getModule().isNamed(), "on the class path");
        String netty = Version.identify().get("netty-transport").artifactVersion();
        assertEquals(System.getProperty("expected.netty.version", netty), netty, "the Netty the build asked for");
        assertNull(Ringwire.unavailabilityCause());
        byte[] message = new byte[64 * 1024];
        new Random(7).nextBytes(message);
        EventLoopGroup group = Echo.newGroup();
        try {
            assertArrayEquals(message, Echo.roundTrip(group, message));
            EventLoop loop = (EventLoop) group.next();
            RingwireCounters counters = RingwireCounters.of(loop);
            assertNotNull(counters, "the group's loop is Ringwire's");
            assertTrue(loop.submit(counters::recvBytes).get() >= 2L * message.length, counters.toString());
            assertTrue(loop.submit(counters::writeBytes).get() >= 2L * message.length, counters.toString());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
