package io.ringwire.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Facts said in several places say the same everywhere: in README.md, docs/*.md and the main sources of every module
 * but the lab, the kernel Ringwire needs (each "kernel older than X", where Ringwire cannot run) is the README's Linux
 * minimum, and each Micronaut transport list ({@code micronaut.netty.event-loops.default.transport=...}) is the one
 * the README gives.
 */
class SameFactsTest {
    private static final Pattern OLDER_KERNEL = Pattern.compile("kernel older than (\\d+\\.\\d+)");
    private static final Pattern MICRONAUT =
        Pattern.compile("micronaut\\.netty\\.event-loops\\.default\\.transport=([\\w,]+)");

    @Test
    void theKernelMinimumAndTheMicronautTransportListAreTheSameEverywhere() throws IOException {
        Path root = Markdown.root();
        Markdown.Table compatibility = Markdown.tables(root.resolve("README.md")).stream()
            .filter(t -> t.column("minimum") >= 0 && t.column("tested") >= 0).findFirst().orElseThrow();
        String linux = compatibility.rows().stream().filter(r -> r.cell(0).equals("Linux")).findFirst().orElseThrow()
            .cell(compatibility.column("minimum"));
        Map<String, Set<String>> micronaut = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (Path file : files(root)) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (MalformedInputException e) {
                continue;
            }
            for (int i = 0; i < lines.size(); i++) {
                String where = root.relativize(file) + ":" + (i + 1);
                Matcher k = OLDER_KERNEL.matcher(lines.get(i));
                while (k.find()) {
                    if (!k.group(1).equals(linux)) {
                        problems.add(where + ": 'kernel older than " + k.group(1) + "', but Ringwire needs " + linux
                            + " (README's compatibility table)");
                    }
                }
                Matcher m = MICRONAUT.matcher(lines.get(i));
                while (m.find()) {
                    micronaut.computeIfAbsent(m.group(1), v -> new TreeSet<>()).add(where);
                }
            }
        }
        if (micronaut.size() > 1) {
            problems.add("Micronaut's transport list differs: " + micronaut);
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }

    private static List<Path> files(Path root) throws IOException {
        List<Path> files = new ArrayList<>(Markdown.documentation(root));
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile).filter(p -> {
                String r = root.relativize(p).toString();
                return !r.startsWith("ringwire-lab/") && !r.contains("/target/") && r.contains("/src/main/");
            }).sorted().forEach(files::add);
        }
        return files;
    }
}
