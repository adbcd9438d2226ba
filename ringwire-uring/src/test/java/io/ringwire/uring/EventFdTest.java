package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * An event loop's owner closes its eventfd while other threads may be waking it: Netty calls wakeup() from any
 * thread, up to the loop's last moment (Vert.x's WebSocket tests did it while the loop was destroyed).
 */
class EventFdTest {

    @Test
    void signalAfterCloseDoesNothing() throws Exception {
        EventFd e = EventFd.create();
        assertEquals(8, e.signal());
        e.close();
        assertEquals(0, e.signal());
        e.close(); // twice is harmless
    }

    /**
     * Before signal() and close() knew of each other, close() freed the arena under a signal's write(2) and threw
     * IllegalStateException ("Session is acquired by 1 clients"), which ended the loop's clean-up there, leaving its
     * ring open; and the fd could be closed, and its number taken by another file, under that write. A race: a run
     * without the fix fails only when a close lands on a write (here, most runs do); with it, none can fail.
     */
    @Test
    void closeWhileOtherThreadsSignal() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int round = 0; round < 300 && failure.get() == null; round++) {
            EventFd e = EventFd.create();
            CountDownLatch started = new CountDownLatch(3);
            List<Thread> signallers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Thread th = new Thread(() -> {
                    started.countDown();
                    try {
                        for (int i = 0; i < 2_000; i++) {
                            int r = e.signal();
                            if (r != 8 && r != 0 && r != -Errno.EAGAIN) {
                                throw new AssertionError("signal returned " + Errno.name(r));
                            }
                        }
                    } catch (Throwable x) {
                        failure.compareAndSet(null, x);
                    }
                });
                th.start();
                signallers.add(th);
            }
            started.await();
            try {
                e.close();
            } catch (Throwable x) {
                failure.compareAndSet(null, x);
            }
            for (Thread th : signallers) {
                th.join();
            }
        }
        assertNull(failure.get(), () -> "a signal or the close failed: " + failure.get());
    }
}
