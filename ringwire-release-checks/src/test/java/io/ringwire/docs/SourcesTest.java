package io.ringwire.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user reads names its sources publicly: no "seed 001"-style label for a published experiment (the README's
 * "Where Ringwire comes from" names each by title, author, year and link), and no {@code ../shared} path, which exists
 * only beside the project's own checkout. Checked: README.md, CHANGELOG.md, docs/*.md, the {@code ringwire} script,
 * every pom.xml, and every file under a {@code src/main} of a module (the lab's too) or a consumer project.
 */
class SourcesTest {
    private static final Pattern SEED = Pattern.compile("(?i)\\bseeds?[ -]?\\d{3}\\b");
    private static final Pattern SHARED = Pattern.compile("\\.\\./shared\\b");

    @Test
    void noSeedLabelAndNoPathOutsideTheRepository() throws IOException {
        Path root = Markdown.root();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md"),
            root.resolve("ringwire")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md"))
                .sorted().forEach(files::add);
        }
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile)
                .filter(p -> {
                    String r = root.relativize(p).toString();
                    return !r.contains("/target/") && !r.startsWith(".")
                        && (r.endsWith("pom.xml") || r.contains("/src/main/"));
                })
                .sorted().forEach(files::add);
        }
        assertTrue(files.stream().anyMatch(p -> p.toString().endsWith("RingwireCounters.java")),
            () -> "the walk finds the main sources: " + files.size() + " files");
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (MalformedInputException e) {
                continue; // not text
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (SEED.matcher(line).find()) {
                    problems.add(root.relativize(file) + ":" + (i + 1) + ": a seed label, not its public source: "
                        + line.strip());
                }
                if (SHARED.matcher(line).find()) {
                    problems.add(root.relativize(file) + ":" + (i + 1) + ": a path outside the repository: "
                        + line.strip());
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> "name sources by title, author, year and link (" + problems.size()
            + "):\n  " + String.join("\n  ", problems));
    }
}
