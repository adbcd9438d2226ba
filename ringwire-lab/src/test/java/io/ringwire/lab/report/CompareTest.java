package io.ringwire.lab.report;

import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.results.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lab compare}: two results files, read back from JSON, judged per workload and server. */
class CompareTest {
    private static Path results(Path dir, String name, double rwCpu1, double rwCpu2) throws IOException {
        List<RunResult> runs = List.of(
            SummaryTest.run("echo", "ringwire", 1, 1000, rwCpu1, 10, 0),
            SummaryTest.run("echo", "ringwire", 2, 1000, rwCpu2, 10, 0),
            SummaryTest.run("echo", "netty-epoll", 1, 1000, 10, 10, 0),
            SummaryTest.run("echo", "netty-epoll", 2, 1000, 11, 10, 0));
        Path d = dir.resolve(name);
        LabReport.of("./ringwire lab", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING, List.of(), runs, null)
            .write(d);
        return d.resolve("results.json");
    }

    @Test
    void shouldJudgeEachServerNewOverOld(@TempDir Path dir) throws IOException {
        Path older = results(dir, "old", 10, 11);
        Path newer = results(dir, "new", 7, 8);
        String table = Compare.table(Compare.read(older), Compare.read(newer));
        assertTrue(table.contains("ringwire           0.71 ("), table);
        assertTrue(table.contains("measurably lower"), table);
        assertTrue(table.lines().filter(l -> l.contains("netty-epoll")).findFirst().orElseThrow()
            .contains("1.00 (1.00-1.00) no measurable change"), table);
    }

    @Test
    void shouldGiveEachServersContextSwitchesOldAndNewWhereBothFilesHaveThem(@TempDir Path dir) throws IOException {
        Path older = results(dir, "old", 10, 11); // from before the lab read them: none
        Path newer = dir.resolve("new");
        LabReport.of("./ringwire lab", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING, List.of(), List.of(
            SummaryTest.withCounters(SummaryTest.run("echo", "ringwire", 1, 1000, 7, 10, 0), 300, 12, 1, 0, 0),
            SummaryTest.withCounters(SummaryTest.run("echo", "ringwire", 2, 1000, 8, 10, 0), 320, 8, 1, 0, 0),
            SummaryTest.run("echo", "netty-epoll", 1, 1000, 10, 10, 0),
            SummaryTest.run("echo", "netty-epoll", 2, 1000, 11, 10, 0)), null).write(newer);
        String table = Compare.table(Compare.read(older), Compare.read(newer.resolve("results.json")));
        assertTrue(table.lines().findFirst().orElseThrow().endsWith("ctx switches/1k msgs old → new"), table);
        assertTrue(table.lines().filter(l -> l.startsWith("echo · v") && l.contains("ringwire")).findFirst()
            .orElseThrow().endsWith(" - → 320"), table);
        assertTrue(table.lines().filter(l -> l.contains("netty-epoll")).findFirst().orElseThrow().endsWith(" -"),
            table);
    }

    @Test
    void shouldSayWhatIsOnlyInOneFile(@TempDir Path dir) throws IOException {
        Path older = results(dir, "old", 10, 11);
        Path other = dir.resolve("other.json");
        Files.writeString(other, "{\"runs\":[{\"workload\":\"redis\",\"variant\":\"10 clients\",\"server\":\"ringwire\","
            + "\"serverCpuUsPerMsg\":5,\"rate\":100}]}");
        String table = Compare.table(Compare.read(older), Compare.read(other));
        assertTrue(table.contains("redis · 10 clients / ringwire: only in the new results"), table);
        assertTrue(table.contains("echo · v / netty-epoll: only in the old results"), table);
    }

    @Test
    void shouldRefuseAFileThatIsNotALabResult(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"hello\": 1}");
        IOException e = assertThrows(IOException.class, () -> Compare.read(bad));
        assertTrue(e.getMessage().contains("not a lab results.json"), e.getMessage());
    }
}
