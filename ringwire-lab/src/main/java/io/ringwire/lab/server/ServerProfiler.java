package io.ringwire.lab.server;

import one.profiler.AsyncProfiler;

import java.util.Locale;

/**
 * The server's side of {@code --profile}: async-profiler, loaded into this JVM at its start ({@code -agentpath},
 * {@link Profiling#jvmFlags}), started when the lab opens the measured window and stopped when it closes it, then its
 * samples written as collapsed stacks and as an interactive flame graph. The lab sends the commands on the server's
 * stdin ({@link ServerStats}): {@code PROFILE-START <library>}, {@code PROFILE-STOP}, {@code PROFILE-DUMP <base path>};
 * each is answered with one {@code PROFILE ...} line, or {@code ERROR ...}.
 */
public final class ServerProfiler {
    /** The async-profiler the lab depends on (ringwire-lab's pom). */
    public static final String VERSION = "4.1";

    /** Samples every millisecond of a thread's CPU: about 3,000 in a 3 s window of a saturated core. */
    public static final String INTERVAL = "1ms";

    private static AsyncProfiler profiler;

    private ServerProfiler() { }

    /**
     * Starts sampling every thread's CPU with kernel frames: perf_events' {@code cpu-clock} (a software event; this
     * kind of VM has no hardware counters), or where perf_events are refused (perf_event_paranoid, seccomp), setitimer's
     * {@code itimer}, which sees no kernel frames. async-profiler's own {@code event=cpu} would fall back to
     * {@code ctimer} without saying so: the engine is chosen here, so that the report can name it.
     *
     * @param library the libasyncProfiler.so this JVM was started with
     * @return the reply line: {@code PROFILE engine=cpu-clock} or {@code PROFILE engine=itimer (cpu-clock: why)}
     */
    static synchronized String start(String library) {
        try {
            profiler = AsyncProfiler.getInstance(library);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return "ERROR async-profiler did not load from " + library + ": " + e.getMessage();
        }
        try {
            profiler.execute("start,event=cpu-clock,interval=" + INTERVAL);
            return "PROFILE engine=cpu-clock";
        } catch (Exception perf) {
            try {
                profiler.execute("start,event=itimer,interval=" + INTERVAL);
                return "PROFILE engine=itimer (cpu-clock refused: " + oneLine(perf.getMessage()) + ")";
            } catch (Exception itimer) {
                return "ERROR no CPU engine: cpu-clock: " + oneLine(perf.getMessage()) + "; itimer: "
                    + oneLine(itimer.getMessage());
            }
        }
    }

    /** @return {@code PROFILE stopped}, or an ERROR line */
    static synchronized String stop() {
        if (profiler == null) {
            return "ERROR the profiler was not started";
        }
        try {
            profiler.execute("stop");
            return "PROFILE stopped";
        } catch (Exception e) {
            return "ERROR " + oneLine(e.getMessage());
        }
    }

    /**
     * Writes what the stopped profiler sampled: {@code base.collapsed} (one line per stack, root first, with its
     * samples) and {@code base.html} (async-profiler's flame graph).
     *
     * @param base the files' path without extension; no comma (async-profiler's argument separator)
     * @return {@code PROFILE dumped samples=N}, or an ERROR line
     */
    static synchronized String dump(String base) {
        if (profiler == null) {
            return "ERROR the profiler was not started";
        }
        if (base.contains(",")) {
            return "ERROR async-profiler cannot write to a path with a comma: " + base;
        }
        try {
            String title = java.nio.file.Path.of(base).getFileName().toString();
            profiler.execute("dump,collapsed,file=" + base + ".collapsed");
            profiler.execute("dump,flamegraph,title=" + title + ",file=" + base + ".html");
            return String.format(Locale.ROOT, "PROFILE dumped samples=%d", profiler.getSamples());
        } catch (Exception e) {
            return "ERROR " + oneLine(e.getMessage());
        }
    }

    private static String oneLine(String s) {
        return s == null ? "?" : s.replace('\n', ' ').trim();
    }
}
