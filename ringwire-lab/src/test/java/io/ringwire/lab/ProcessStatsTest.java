package io.ringwire.lab;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lab reads a server's CPU time from outside: it must agree with what the process says of itself. */
class ProcessStatsTest {
    @Test
    void processCpuReadFromOutsideAgreesWithTheProcessAndMissesNoneOfItsWork() {
        long pid = ProcessHandle.current().pid();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var thread = ManagementFactory.getThreadMXBean();
        double before = ProcessStats.cpuSeconds(pid);
        long threadBefore = thread.getCurrentThreadCpuTime();
        long x = 0;
        long until = System.nanoTime() + 50_000_000L; // some CPU of this thread, so every count moves
        while (System.nanoTime() < until) {
            x += x * 31 + 7;
        }
        double burned = (thread.getCurrentThreadCpuTime() - threadBefore) / 1e9;
        // the JVM's own figure (10 ms ticks here) read just before and just after: whatever other threads run in
        // between, or however long this one waits for a core, the outside reading falls between the two
        double ownBefore = os.getProcessCpuTime() / 1e9;
        double outside = ProcessStats.cpuSeconds(pid);
        double ownAfter = os.getProcessCpuTime() / 1e9;
        assertTrue(outside - before >= burned - 0.001, "this thread's " + burned + " s is in the process's "
            + (outside - before) + " s (" + x + ")");
        assertTrue(ownBefore <= outside + 0.001 && outside <= ownAfter + 0.011,
            "process CPU read from outside " + outside + " s, the JVM's own " + ownBefore + " / " + ownAfter + " s");
    }

    @Test
    void compilerThreadsAreCountedApart() {
        double jit = ProcessStats.jitCpuSeconds(ProcessHandle.current().pid());
        assertTrue(jit >= 0 && jit <= ProcessStats.cpuSeconds(ProcessHandle.current().pid()), "jit=" + jit);
    }
}
