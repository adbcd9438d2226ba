package io.ringwire.lab;

import java.io.PrintStream;
import java.util.Locale;

/** The lab's progress display: one line per run with its place in the whole suite, the time spent and left. */
final class Progress {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();
    private final int total;
    private int done;

    /**
     * @param out   where lines go
     * @param total runs planned
     */
    Progress(PrintStream out, int total) {
        this.out = out;
        this.total = total;
    }

    /** @return a display that prints nothing (tests) */
    static Progress silent() {
        return new Progress(new PrintStream(java.io.OutputStream.nullOutputStream()), 0);
    }

    /** @param what the run starting now */
    synchronized void starting(String what) {
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        String left = done == 0 ? "" : ", ~" + clock(elapsed / done * (total - done)) + " left";
        out.printf(Locale.ROOT, "[%2d/%d %s%s] %s%n", done + 1, Math.max(total, done + 1), clock(elapsed), left, what);
        out.flush();
    }

    /** @param outcome the run's one-line result */
    synchronized void finished(String outcome) {
        done++;
        out.println("        " + outcome);
        out.flush();
    }

    /** @param line a note between runs */
    synchronized void note(String line) {
        out.println(line);
        out.flush();
    }

    static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
