package io.ringwire.lab.load;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.BooleanSupplier;

/**
 * The measured window of a one-thread load generator (UDP, files, QUIC): it opens when the warm-up is over (the
 * caller's counters are reset then), closes {@code seconds} later, and measures the generator thread's CPU in between.
 *
 * <p>The caller counts and records during the warm-up too, into the counters the opening resets: a generator that
 * recorded only once the window was open would take a branch at the opening that its compiled code had never seen,
 * and the JIT's deoptimization and recompilation would stall it inside the first measured window of the lab's JVM
 * (seen as a p99 of 40-58 ms in a lab JVM's first quic run, 10-24 ms in the others, whichever server ran first).
 */
final class MeasuredWindow {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final BooleanSupplier warmupOver;
    private final double seconds;
    private final Runnable onWindow;
    private final Runnable reset;
    private boolean open;
    private long end = Long.MAX_VALUE;
    private long cpuStart;

    /**
     * @param warmupOver says when the warm-up is over
     * @param seconds    the window's length
     * @param onWindow   called when it opens and when it closes
     * @param reset      resets the caller's counters when it opens
     */
    MeasuredWindow(BooleanSupplier warmupOver, double seconds, Runnable onWindow, Runnable reset) {
        this.warmupOver = warmupOver;
        this.seconds = seconds;
        this.onWindow = onWindow;
        this.reset = reset;
    }

    /** Opens the window once the warm-up is over; @return whether its time is up */
    boolean tick(long now) {
        if (!open && warmupOver.getAsBoolean()) {
            open = true;
            end = now + (long) (seconds * 1e9);
            onWindow.run();
            cpuStart = threads.getCurrentThreadCpuTime();
            reset.run();
        }
        return now >= end;
    }

    /**
     * Closes the window: @return what it saw, with a copy of {@code latency} (a generator whose connections are still
     * answering while the caller reads the result goes on recording into its own)
     */
    LoadGenerator.Result close(long messages, long sent, Histogram latency, long mismatches, long errors) {
        onWindow.run();
        double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        Histogram none = new Histogram(1_000_000L, 1);
        return new LoadGenerator.Result(messages, 0, sent, seconds, latency.copy(), none, none, mismatches, errors, 0,
            cpu, Double.NaN);
    }
}
