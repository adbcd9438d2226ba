package io.ringwire.lab.experiment;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The lab's progress display: a heading per experiment, then one line per run that says which run it is (its place in
 * the whole suite, the time spent and left, workload, round, server) and, once it is over, what it measured.
 */
public final class Progress {
    private final PrintStream out;
    private final long startNanos;
    private final int total;
    private final boolean detailed;
    private int done;
    /** Whether a run's line has been started and not yet ended. */
    private boolean open;

    /**
     * @param out   where lines go
     * @param total runs planned
     */
    public Progress(PrintStream out, int total) {
        this(out, total, false);
    }

    /**
     * @param out      where lines go
     * @param total    runs planned
     * @param detailed whether every run's line is followed by all it measured (--wide)
     */
    public Progress(PrintStream out, int total, boolean detailed) {
        this(out, total, detailed, System.nanoTime());
    }

    /** As {@link #Progress(PrintStream, int, boolean)}, the suite having started at {@code startNanos} (tests). */
    public Progress(PrintStream out, int total, boolean detailed, long startNanos) {
        this.startNanos = startNanos;
        this.out = out;
        this.total = total;
        this.detailed = detailed;
    }

    /** @return a display that prints nothing (tests) */
    public static Progress silent() {
        return new Progress(new PrintStream(java.io.OutputStream.nullOutputStream()), 0);
    }

    /**
     * Starts a run's line; {@link #finished} ends it, on the same line.
     *
     * @param workload the workload's name
     * @param round    e.g. "round 1/2"
     * @param server   the server's label
     */
    synchronized void starting(String workload, String round, String server) {
        endLine();
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        String left = done == 0 ? "" : " ~" + clock(elapsed / done * (total - done)) + " left";
        // padded so that the first line, which cannot tell the time left yet, lines up with the others
        String place = String.format(Locale.ROOT, "[%2d/%d %s%s]", done + 1, Math.max(total, done + 1),
            clock(elapsed), left);
        out.printf(Locale.ROOT, "%-23s %-13s %-9s %-16s", place, workload, round, server);
        out.flush();
        open = true;
    }

    /**
     * @param outcome  the run's result, short: it ends the run's line
     * @param problems what went wrong, on a line of its own; null if nothing did
     * @param detail   everything the run measured, on a line of its own when the display is detailed
     */
    synchronized void finished(String outcome, String problems, String detail) {
        done++;
        out.println((open ? " " : "        ") + outcome);
        open = false;
        if (problems != null) {
            out.println("        " + problems);
        }
        if (detailed) {
            out.println("        " + detail);
        }
        out.flush();
    }

    /** Ends a run's line that will not get its outcome (the run failed). */
    synchronized void abandoned() {
        endLine();
        out.flush();
    }

    /** @param line a note between runs, e.g. an experiment's heading */
    public synchronized void note(String line) {
        endLine();
        out.println(line);
        out.flush();
    }

    private void endLine() {
        if (open) {
            out.println();
            open = false;
        }
    }

    static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
