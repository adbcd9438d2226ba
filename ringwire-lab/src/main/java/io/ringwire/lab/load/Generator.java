package io.ringwire.lab.load;

import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * One of the lab's own load generators, made for one server and one run: it loads the server until the warm-up is
 * over, measures a window, checks every byte it gets back, and says what the window saw. The five: {@link
 * LoadGenerator} (TCP and Unix domain streams: echo and frames), {@link UdpLoadGenerator}, {@link TlsLoadGenerator},
 * {@link QuicLoadGenerator} and {@link FileLoadGenerator}. The external programs the lab drives (redis-benchmark, wrk)
 * report their own figures instead, and are {@link Driver}s only.
 */
public interface Generator {
    /**
     * @param warmupOver says when the unmeasured warm-up is over
     * @param seconds    the measured window's length
     * @param onWindow   called when the window opens and when it closes
     * @return what the window saw
     * @throws IOException          if the load cannot be applied
     * @throws InterruptedException if interrupted
     */
    LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow)
        throws IOException, InterruptedException;
}
