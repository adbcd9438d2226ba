package io.ringwire.lab.server;

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
        // the process's own CPU clock read just before and just after (the same scheduler count, in nanoseconds, that
        // only grows): whatever other threads run in between, or however long this one waits for a core, the reading
        // by pid falls between the two, with no tolerance; the JVM's own figure (OperatingSystemMXBean, sampled 10 ms
        // ticks here, which may lag the scheduler's count by more than a tick) cannot be bracketed like that
        long ownBefore = ProcessCpuClock.ownNanos();
        long outside = ProcessCpuClock.nanos(pid);
        long ownAfter = ProcessCpuClock.ownNanos();
        assertTrue(ProcessStats.cpuSeconds(pid) - before >= burned - 0.001, "this thread's " + burned
            + " s is in the process's " + (ProcessStats.cpuSeconds(pid) - before) + " s (" + x + ")");
        assertTrue(ownBefore > 0 && ownBefore <= outside && outside <= ownAfter,
            "process CPU read by pid " + outside + " ns, the process's own clock " + ownBefore + " / " + ownAfter
                + " ns");
        // and the JVM's coarse figure is of the same process: within a second of it, not another process's
        double jvm = os.getProcessCpuTime() / 1e9;
        assertTrue(Math.abs(jvm - outside / 1e9) < 1.0, "the JVM says " + jvm + " s, read by pid " + outside / 1e9);
    }

    @Test
    void compilerThreadsAreCountedApart() {
        double jit = ProcessStats.jitCpuSeconds(ProcessHandle.current().pid());
        assertTrue(jit >= 0 && jit <= ProcessStats.cpuSeconds(ProcessHandle.current().pid()), "jit=" + jit);
    }

    @Test
    void anEndedChildsCpuIsReadApartFromTheProcesssOwn() {
        // /proc/PID/stat of a process named with a space and a parenthesis: utime 500, stime 120, cutime 37, cstime 5
        String stat = "4242 (java (lab) x) S 1 4242 4242 0 -1 4194304 9 0 0 0 500 120 37 5 20 0 30 0 100 0 0";
        assertEquals(620, ProcessStats.parseCpuTicks(stat));
        assertEquals(42, ProcessStats.parseEndedChildrenCpuTicks(stat));
        assertEquals(662, ProcessStats.parseCpuTicksWithChildren(stat));
    }

    @Test
    void aChildsCpuCountsOnceItHasEndedAndBeenWaitedFor() throws Exception {
        long self = ProcessHandle.current().pid();
        double before = ProcessStats.endedChildrenCpuSeconds(self);
        // a child that burns CPU until it has used at least 0.2 s of it (its own clock: however slow the machine)
        Process p = new ProcessBuilder("sh", "-c",
            "while [ $(( $(cut -d' ' -f14 /proc/$$/stat) + $(cut -d' ' -f15 /proc/$$/stat) )) -lt 20 ]; do :; done")
            .start();
        assertEquals(0, p.waitFor());
        double used = ProcessStats.endedChildrenCpuSeconds(self) - before;
        assertTrue(used >= 0.2, "the ended child's CPU: " + used + " s");
    }
}
