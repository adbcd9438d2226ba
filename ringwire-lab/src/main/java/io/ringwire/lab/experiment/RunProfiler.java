package io.ringwire.lab.experiment;

import io.ringwire.lab.results.Profile;
import io.ringwire.lab.server.Profiling;
import io.ringwire.lab.server.ServerProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code --profile} for one measured run, the same for a lab server and for the redis-client workload's client JVM
 * (both answer the lab's lines, {@link io.ringwire.lab.server.ServerStats}): async-profiler loaded into the measured JVM at
 * its start ({@link #jvmFlags}), started as the window opens, stopped as it closes, its samples then written into the
 * report's directory and read into a {@link Profile}; the run records {@link #profiled}. A run that is not profiled (no
 * {@code --profile}, or a rehearsal) gets {@link #NONE}, which does none of it.
 */
public final class RunProfiler {
    /** Profiles nothing. */
    static final RunProfiler NONE = new RunProfiler(null, null, null, null, 0, p -> { });

    private final Profiling profiling;
    private final String workload;
    private final String variant;
    private final String measured;
    private final int round;
    private final Consumer<Profile> kept;
    /** The engine the profiler started with, once it has. */
    private String engine;

    /**
     * @param profiling where the profiler's library is and where the profiles go
     * @param workload  the run's workload
     * @param variant   its parameters
     * @param measured  the measured process's label (a server's, or a client's)
     * @param round     its round
     * @param kept      takes the run's profile once read
     */
    RunProfiler(Profiling profiling, String workload, String variant, String measured, int round,
                Consumer<Profile> kept) {
        this.profiling = profiling;
        this.workload = workload;
        this.variant = variant;
        this.measured = measured;
        this.round = round;
        this.kept = kept;
    }

    /** @return whether this run is profiled */
    public boolean profiled() {
        return profiling != null;
    }

    /** @return the flags that load the profiler into the measured JVM ({@link Profiling#jvmFlags}); none if not */
    public List<String> jvmFlags() {
        return profiled() ? profiling.jvmFlags() : List.of();
    }

    /**
     * Starts the profiler in the measured process as its window opens: before its CPU clock is read, since starting it
     * is not the window's work.
     *
     * @throws UncheckedIOException if the process does not answer (the load generator's window edges take no checked
     *                              exception)
     */
    public void windowOpens(ServerProcess process) {
        if (!profiled()) {
            return;
        }
        try {
            engine = process.startProfiler(profiling.library());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Stops the profiler as the window closes: as soon as the clocks are read, before anything else the lab asks of the
     * process (a full collection for LIVE, the redis-client's read-back).
     *
     * @throws UncheckedIOException if the process does not answer
     */
    public void windowCloses(ServerProcess process) {
        if (!profiled()) {
            return;
        }
        try {
            process.stopProfiler();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Has the process write its samples ({@code .collapsed} and the {@code .html} flame graph) and keeps them as the
     * run's profile; does nothing if the profiler did not start.
     *
     * @param cpuUsPerMsg the process's CPU per message over the window, JIT compiler threads included (as they are in
     *                    the samples)
     * @throws IOException if the process cannot write them or they cannot be read
     */
    public void keep(ServerProcess process, double cpuUsPerMsg) throws IOException {
        if (!profiled() || engine == null) {
            return;
        }
        Path base = profiling.base(workload, variant, measured, round);
        process.dumpProfile(base);
        Path html = base.resolveSibling(base.getFileName() + ".html");
        Path collapsed = base.resolveSibling(base.getFileName() + ".collapsed");
        kept.accept(Profile.read(workload, variant, measured, round, engine, profiling.link(html),
            profiling.link(collapsed), cpuUsPerMsg, collapsed));
    }
}
