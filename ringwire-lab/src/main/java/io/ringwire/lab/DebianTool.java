package io.ringwire.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** A load generator nobody here wrote (redis-benchmark, wrk): found on PATH, or installed with apt-get as root. */
final class DebianTool {
    private DebianTool() { }

    /**
     * @param workload the workload that needs it, for the notes
     * @param program  the executable, e.g. {@code wrk}
     * @param pkg      the Debian package that has it, e.g. {@code wrk}
     * @param note     receives what was done or why the workload cannot run
     * @return the program's path, or null (the workload is skipped; {@code note} said why)
     */
    static String locate(String workload, String program, String pkg, Consumer<String> note) {
        String found = ServerProcess.onPath(program);
        if (found != null) {
            return found;
        }
        String aptGet = ServerProcess.onPath("apt-get");
        boolean root = "root".equals(System.getProperty("user.name"));
        if (aptGet == null || !root) {
            note.accept(workload + ": skipped: " + program + " is not installed (Debian/Ubuntu: sudo apt-get install "
                + pkg + ")");
            return null;
        }
        note.accept(workload + ": installing " + pkg + " for " + program + " (apt-get install -y " + pkg + ") ...");
        try {
            Process p = new ProcessBuilder(aptGet, "install", "-y", "-q", pkg).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                note.accept(workload + ": skipped: apt-get install " + pkg + " failed:\n" + out.strip());
                return null;
            }
        } catch (IOException e) {
            note.accept(workload + ": skipped: could not run apt-get: " + e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        found = ServerProcess.onPath(program);
        if (found == null) {
            note.accept(workload + ": skipped: " + pkg + " installed but " + program + " is not on PATH");
        }
        return found;
    }
}
