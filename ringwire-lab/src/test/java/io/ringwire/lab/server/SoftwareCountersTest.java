package io.ringwire.lab.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counters perf stat would show for a server, read from /proc: parsing, the window's arithmetic, live values. */
class SoftwareCountersTest {
    /** A thread's /proc/PID/task/TID/status, the lines that matter and a few around them. */
    private static String status(String name, long voluntary, long involuntary) {
        return "Name:\t" + name + "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4243\n"
            + "Threads:\t30\nvoluntary_ctxt_switches:\t" + voluntary + "\nnonvoluntary_ctxt_switches:\t" + involuntary
            + "\n";
    }

    /** A thread's /proc/PID/task/TID/sched as Linux 6.18 writes it (its first lines). */
    private static String sched(long migrations) {
        return "java (4243, #threads: 30)\n"
            + "-------------------------------------------------------------------\n"
            + "se.exec_start                                :      35813867.434655\n"
            + "se.vruntime                                  :           452.304671\n"
            + "se.sum_exec_runtime                          :             0.519143\n"
            + "se.nr_migrations                             :                    " + migrations + "\n"
            + "nr_switches                                  :                    1\n";
    }

    private static Path task(Path dir, long tid, String status, String sched) throws IOException {
        Path task = Files.createDirectories(dir.resolve("task").resolve(Long.toString(tid)));
        Files.writeString(task.resolve("status"), status);
        if (sched != null) {
            Files.writeString(task.resolve("sched"), sched);
        }
        return task;
    }

    @Test
    void pageFaultsAreTheStatFieldsAfterACommandNameWithSpacesAndParentheses() {
        // minflt 9876 cminflt 5 majflt 12 cmajflt 3, then utime 500 stime 120
        String stat = "4242 (java (lab) x) S 1 4242 4242 0 -1 4194304 9876 5 12 3 500 120 37 5 20 0 30 0 100 0 0";
        assertArrayEquals(new long[] {9876, 12}, SoftwareCounters.parsePageFaults(stat));
    }

    @Test
    void migrationsAreTheSchedFieldAndUnknownWhereItIsMissing() {
        assertEquals(17, SoftwareCounters.parseMigrations(sched(17).lines().toList()));
        assertEquals(-1, SoftwareCounters.parseMigrations(List.of("java (4243, #threads: 30)", "nr_switches : 1")));
    }

    @Test
    void contextSwitchesAndTheLabsOwnThreadsAreReadFromAThreadsStatus() {
        assertArrayEquals(new long[] {120, 7},
            ProcessStats.parseContextSwitches(status("ringwire-loop", 120, 7).lines().toList()));
        assertTrue(SoftwareCounters.labThread(status("lab-memory-sampler", 1, 0).lines().toList()));
        assertFalse(SoftwareCounters.labThread(status("ringwire-loop", 1, 0).lines().toList()));
    }

    @Test
    void aThreadThatEndedBetweenListingAndReadingIsSkippedAndTheLabsThreadsAreLeftOut(@TempDir Path dir)
        throws IOException {
        Path loop = task(dir, 101, status("ringwire-loop", 500, 20), sched(3));
        Path gc = task(dir, 102, status("G1 Main Marker", 40, 1), sched(0));
        Path sampler = task(dir, 103, status("lab-memory-sampler", 9000, 5), sched(2));
        Path ended = dir.resolve("task/104"); // listed, then gone before its files were read
        Map<Long, SoftwareCounters.ThreadCounts> threads = SoftwareCounters.threads(List.of(loop, ended, gc, sampler));
        assertEquals(Map.of(101L, new SoftwareCounters.ThreadCounts(500, 20, 3),
            102L, new SoftwareCounters.ThreadCounts(40, 1, 0)), threads);
    }

    @Test
    void aKernelWithoutSchedFilesLeavesTheMigrationsUnknownNotZero(@TempDir Path dir) throws IOException {
        Path loop = task(dir, 101, status("ringwire-loop", 500, 20), null);
        Map<Long, SoftwareCounters.ThreadCounts> threads = SoftwareCounters.threads(List.of(loop));
        assertEquals(new SoftwareCounters.ThreadCounts(500, 20, -1), threads.get(101L));
        SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(
            new SoftwareCounters.Snapshot(threads, 100, 0),
            new SoftwareCounters.Snapshot(Map.of(101L, new SoftwareCounters.ThreadCounts(700, 30, -1)), 150, 1),
            2000);
        assertEquals(100, k.voluntarySwitches());
        assertEquals(5, k.involuntarySwitches());
        assertEquals(25, k.minorFaults());
        assertEquals(0.5, k.majorFaults());
        assertTrue(Double.isNaN(k.migrations()), k.toString());
    }

    @Test
    void aStatusWithoutSwitchLinesLeavesTheSwitchesUnknownNotZero(@TempDir Path dir) throws IOException {
        Path loop = task(dir, 101, "Name:\tringwire-loop\nState:\tS (sleeping)\n", sched(3));
        Map<Long, SoftwareCounters.ThreadCounts> threads = SoftwareCounters.threads(List.of(loop));
        assertEquals(new SoftwareCounters.ThreadCounts(-1, -1, 3), threads.get(101L));
        SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(new SoftwareCounters.Snapshot(threads, 100, 0),
            new SoftwareCounters.Snapshot(Map.of(101L, new SoftwareCounters.ThreadCounts(-1, -1, 5)), 100, 0), 1000);
        assertTrue(Double.isNaN(k.voluntarySwitches()) && Double.isNaN(k.involuntarySwitches()), k.toString());
        assertEquals(2, k.migrations());
    }

    @Test
    void theWindowCountsEachThreadFromItsOpeningOrItsBirthAndLosesTheOnesThatEnded() {
        var opening = new SoftwareCounters.Snapshot(Map.of(
            1L, new SoftwareCounters.ThreadCounts(1000, 50, 4), // runs through the window
            2L, new SoftwareCounters.ThreadCounts(300, 3, 1), // ends inside it: lost
            3L, new SoftwareCounters.ThreadCounts(800, 9, 6)), // ends, and a new thread gets its id
            10_000, 2);
        var closing = new SoftwareCounters.Snapshot(Map.of(
            1L, new SoftwareCounters.ThreadCounts(3000, 60, 4),
            3L, new SoftwareCounters.ThreadCounts(5, 1, 0),
            4L, new SoftwareCounters.ThreadCounts(95, 0, 1)), // born inside it
            10_400, 2);
        SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(opening, closing, 4000);
        assertEquals((2000 + 5 + 95) / 4.0, k.voluntarySwitches());
        assertEquals((10 + 1) / 4.0, k.involuntarySwitches());
        assertEquals(100, k.minorFaults());
        assertEquals(0, k.majorFaults());
        assertEquals(1 / 4.0, k.migrations());
    }

    @Test
    void whatAnEdgeCouldNotReadIsUnknownAndSoIsEverythingWithoutMessages() {
        var threads = Map.of(1L, new SoftwareCounters.ThreadCounts(10, 1, 0));
        var read = new SoftwareCounters.Snapshot(threads, 100, 0);
        var gone = SoftwareCounters.Snapshot.NONE;
        SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(read, gone, 1000);
        for (double v : new double[] {k.voluntarySwitches(), k.involuntarySwitches(), k.minorFaults(),
            k.majorFaults(), k.migrations()}) {
            assertTrue(Double.isNaN(v), k.toString());
        }
        assertEquals(SoftwareCounters.PerThousand.NONE, SoftwareCounters.perThousand(read, read, 0));
    }

    @Test
    void theTestJvmsOwnCountsAreReadAndGrowWithWhatItDoes() throws Exception {
        long pid = ProcessHandle.current().pid();
        CountDownLatch slept = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        SoftwareCounters.Snapshot opening = SoftwareCounters.read(pid);
        // a thread born in the window that blocks 20 times: 20 voluntary switches at least
        Thread sleeper = Thread.ofPlatform().name("counters-sleeper").start(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(1);
                }
                slept.countDown();
                read.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // fresh memory touched: every page of it is a page fault (one per huge page where the kernel gives those)
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fresh = arena.allocate(16L << 20, 4096);
            fresh.fill((byte) 1);
        }
        slept.await();
        SoftwareCounters.Snapshot closing = SoftwareCounters.read(pid);
        read.countDown();
        sleeper.join();
        assertFalse(opening.threads().isEmpty(), "the test JVM's threads");
        for (SoftwareCounters.Snapshot s : List.of(opening, closing)) {
            assertTrue(s.minorFaults() >= 0 && s.majorFaults() >= 0, s.toString());
            for (SoftwareCounters.ThreadCounts t : s.threads().values()) {
                assertTrue(t.voluntary() >= 0 && t.involuntary() >= 0, t.toString());
                // Linux 6.18 has /proc/PID/task/TID/sched: a count, not unknown
                assertTrue(t.migrations() >= 0 || !Files.exists(Path.of("/proc/self/sched")), t.toString());
            }
        }
        assertTrue(closing.minorFaults() + closing.majorFaults() > opening.minorFaults() + opening.majorFaults(),
            () -> "page faults " + opening + " then " + closing);
        // per 1,000 of 1,000 messages: the counts themselves; every thread's own count only grows, the sleeper's by 20
        SoftwareCounters.PerThousand k = SoftwareCounters.perThousand(opening, closing, 1000);
        assertTrue(k.voluntarySwitches() >= 20, k.toString());
        assertTrue(k.involuntarySwitches() >= 0 && k.minorFaults() >= 1 && k.majorFaults() >= 0, k.toString());
        assertTrue(k.migrations() >= 0 || !Files.exists(Path.of("/proc/self/sched")), k.toString());
    }
}
