package io.ringwire.lab;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        double outside = ProcessStats.cpuSeconds(pid);
        double own = os.getProcessCpuTime() / 1e9; // the JVM's figure, in 10 ms ticks here
        assertTrue(outside - before >= burned - 0.001, "this thread's " + burned + " s is in the process's "
            + (outside - before) + " s (" + x + ")");
        assertEquals(own, outside, 0.025, "process CPU read from outside vs the JVM's own");
    }

    @Test
    void compilerThreadsAreCountedApart() {
        double jit = ProcessStats.jitCpuSeconds(ProcessHandle.current().pid());
        assertTrue(jit >= 0 && jit <= ProcessStats.cpuSeconds(ProcessHandle.current().pid()), "jit=" + jit);
    }
}
