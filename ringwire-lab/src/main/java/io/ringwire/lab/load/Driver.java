package io.ringwire.lab.load;

import io.ringwire.lab.results.Measurement;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

/**
 * Drives one server for one run, whatever applies the load (a {@link Generator} of the lab's own, redis-benchmark,
 * wrk); calls {@code windowEdge} when the measured window opens and when it closes.
 */
public interface Driver {
    /**
     * @param target     the server
     * @param warmupOver says when the unmeasured warm-up is over
     * @param windowEdge call at the window's start and end
     * @return what the window saw
     * @throws IOException          if the load cannot be applied
     * @throws InterruptedException if interrupted
     */
    Measurement drive(InetSocketAddress target, BooleanSupplier warmupOver, Runnable windowEdge)
        throws IOException, InterruptedException;
}
