package io.ringwire.docs;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every row of a table in README.md and docs/*.md belongs to a table: a blank line inside a table ends it on GitHub,
 * and the rows after it show as plain text with pipes (the checks that read tables would then miss them too).
 */
class MarkdownTablesTest {
    @Test
    void noTableIsSplitByABlankLine() {
        Path root = Markdown.root();
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.documentation(root)) {
            Set<Integer> inTables = new HashSet<>();
            for (Markdown.Table t : Markdown.tables(file)) {
                inTables.add(t.line());
                inTables.add(t.line() + 1);
                t.rows().forEach(r -> inTables.add(r.line()));
            }
            List<String> lines = Markdown.lines(file);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.startsWith("```") || line.startsWith("~~~")) {
                    inCode = !inCode;
                }
                if (!inCode && line.startsWith("|") && !inTables.contains(i + 1)) {
                    problems.add(root.relativize(file) + ":" + (i + 1) + ": a table row outside any table"
                        + (i > 0 && lines.get(i - 1).isBlank() ? " (a blank line above splits its table)" : ""));
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }
}
