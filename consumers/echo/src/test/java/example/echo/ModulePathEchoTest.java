package example.echo;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On the module path, as a named module that requires io.ringwire.transport: the echo works, its bytes went through
 * Ringwire's loop (its counters), and the binding's module has the native access its flag gave it.
 */
class ModulePathEchoTest {
    @Test
    void bytesGoThroughRingwireOnTheModulePath() throws Exception {
        assertEquals("io.ringwire.transport", Ringwire.class.getModule().getName(), "Ringwire is a named module");
        assertEquals("example.echo", Echo.class.getModule().getName(), "so is the application");
        Module binding = ModuleLayer.boot().findModule("io.ringwire.uring").orElseThrow();
        assertTrue(binding.isNativeAccessEnabled(), "--enable-native-access=io.ringwire.uring took");
        assertNull(Ringwire.unavailabilityCause());
        byte[] message = new byte[64 * 1024];
        new Random(42).nextBytes(message);
        EventLoopGroup group = Echo.newGroup();
        try {
            assertArrayEquals(message, Echo.roundTrip(group, message));
            EventLoop loop = (EventLoop) group.next();
            RingwireCounters counters = RingwireCounters.of(loop);
            assertNotNull(counters, "the group's loop is Ringwire's");
            long received = loop.submit(counters::recvBytes).get();
            long sent = loop.submit(counters::writeBytes).get();
            assertTrue(received >= 2L * message.length, "the server and the client received it: " + counters);
            assertTrue(sent >= 2L * message.length, "the client and the server sent it: " + counters);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
