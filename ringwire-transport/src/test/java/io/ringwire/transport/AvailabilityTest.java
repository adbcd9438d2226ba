package io.ringwire.transport;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Ringwire#isAvailable()} answers before any loop is built, and a loop built where Ringwire cannot run fails
 * with a message that says why and what to use instead. Unavailability is simulated with the switch a user has for
 * it ({@code -Dringwire.disable=true}); this machine's kernel has io_uring.
 */
class AvailabilityTest {
    @AfterEach
    void clearSwitch() {
        System.clearProperty(Ringwire.DISABLE_PROPERTY);
    }

    @Test
    void availableOnThisKernel() {
        assertTrue(Ringwire.isAvailable(), () -> String.valueOf(Ringwire.unavailabilityCause()));
        assertNull(Ringwire.unavailabilityCause());
        Ringwire.ensureAvailability();
    }

    @Test
    void unavailableSaysWhyAndWhatToUseInstead() {
        System.setProperty(Ringwire.DISABLE_PROPERTY, "true");
        assertFalse(Ringwire.isAvailable());
        assertTrue(Ringwire.unavailabilityCause().getMessage().contains("-Dringwire.disable=true"));
        Throwable t = assertThrows(Throwable.class,
            () -> new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory()));
        // Netty wraps what the factory threw: find Ringwire's own message in the chain
        Throwable ours = t;
        while (ours != null && !(ours instanceof UnsupportedOperationException)) {
            ours = ours.getCause();
        }
        assertTrue(ours != null, () -> "the cause is in the chain: " + t);
        String message = ours.getMessage();
        assertTrue(message.contains("disabled") && message.contains("epoll"), message);
    }
}
