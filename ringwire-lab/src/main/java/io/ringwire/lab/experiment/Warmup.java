package io.ringwire.lab.experiment;

import io.ringwire.lab.server.ProcessStats;

/**
 * When a run's unmeasured warm-up is over: after at least {@code minSeconds}, as soon as the JIT compiler threads of
 * the server and of the lab itself (whose load generator shares its core with them) have gone quiet (under
 * {@value #QUIET_CORES} of a core in each {@value #SAMPLE_MILLIS} ms sample), and at
 * the latest after {@code maxSeconds}. Quiet means {@value #QUIET_SAMPLES} samples in a row (three seconds): C2 works
 * in bursts, and a quiet second can fall between two of them (rpc-backend's late uncommon traps came 1-2 s apart). A fixed warm-up either wastes time or measures a server still
 * compiling; on a one-core server the compiler threads take their CPU from the event loop, so a window opened too
 * early charges the server with more code to compile twice (its CPU and its lost rate).
 */
public final class Warmup {
    static final double QUIET_CORES = 0.05;
    static final long SAMPLE_MILLIS = 500;
    static final int QUIET_SAMPLES = 6;

    private final long start = System.nanoTime();
    private final long minEnd;
    private final long maxEnd;
    private final long pid;
    private long lastSampleAt;
    private double lastJit;
    private double lastOwnJit;
    private final long self = ProcessHandle.current().pid();
    private long overAt;
    private long openedAt;
    private int quietInARow;

    /**
     * @param minSeconds at least this long
     * @param maxSeconds at most this long
     * @param pid        the server (JIT threads read from /proc); 0 to use only the time limits
     */
    public Warmup(double minSeconds, double maxSeconds, long pid) {
        this.minEnd = start + (long) (minSeconds * 1e9);
        this.maxEnd = start + (long) (Math.max(minSeconds, maxSeconds) * 1e9);
        this.pid = pid;
        this.lastSampleAt = start;
        this.lastJit = pid > 0 ? ProcessStats.jitCpuSeconds(pid) : Double.NaN;
        this.lastOwnJit = pid > 0 ? ProcessStats.jitCpuSeconds(self) : Double.NaN;
    }

    /** @return whether the window may open now; cheap enough to call in a load generator's loop */
    public boolean over() {
        if (overAt != 0) {
            return true;
        }
        long now = System.nanoTime();
        if (now >= maxEnd) {
            overAt = now;
            return true;
        }
        if (now - lastSampleAt < SAMPLE_MILLIS * 1_000_000L) {
            return false;
        }
        double jit = pid > 0 ? ProcessStats.jitCpuSeconds(pid) : Double.NaN;
        double ownJit = pid > 0 ? ProcessStats.jitCpuSeconds(self) : Double.NaN;
        double seconds = (now - lastSampleAt) / 1e9;
        // a compiling generator falls behind its schedule (open loop) or slows the server (closed loop) too
        double cores = Math.max((jit - lastJit) / seconds, (ownJit - lastOwnJit) / seconds);
        lastJit = jit;
        lastOwnJit = ownJit;
        lastSampleAt = now;
        quietInARow = Double.isNaN(cores) || cores < QUIET_CORES ? quietInARow + 1 : 0;
        if (now >= minEnd && quietInARow >= QUIET_SAMPLES) {
            overAt = now;
            return true;
        }
        return false;
    }

    /**
     * The window opened now: a generator may open it later than {@link #over()} first said yes (the main one waits
     * for every connection's first answer), and the warm-up lasted until then.
     */
    void windowOpened(long now) {
        openedAt = now;
    }

    /** @return seconds the warm-up lasted (so far, if not over): until the window opened */
    public double seconds() {
        return ((openedAt != 0 ? openedAt : overAt != 0 ? overAt : System.nanoTime()) - start) / 1e9;
    }
}
