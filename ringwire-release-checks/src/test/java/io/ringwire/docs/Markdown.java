package io.ringwire.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The little of Markdown the documentation checks need: fenced code blocks, pipe tables with the heading they stand
 * under, and code spans. Line numbers are 1-based, as an editor shows them.
 */
final class Markdown {
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([\\w+-]*).*$");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern GIVEN = Pattern.compile("^\\s*<!--\\s*given:\\s*(.*?)\\s*-->\\s*$");

    private Markdown() { }

    /**
     * A fenced code block.
     *
     * @param file      the Markdown file
     * @param fenceLine the line of its opening fence; its first line of code is the next one
     * @param language  the fence's info string, e.g. {@code java}; empty if none
     * @param lines     its lines, without the fences
     * @param given     the parameters an HTML comment {@code <!-- given: ... -->} on the line before the fence
     *                  declares (see {@link SnippetsTest}), or empty
     */
    record CodeBlock(Path file, int fenceLine, String language, List<String> lines, String given) { }

    /**
     * A pipe table.
     *
     * @param file    the Markdown file
     * @param line    the line of its header row
     * @param heading the text of the nearest heading above it
     * @param header  the header cells, lower case
     * @param rows    the body rows' cells, each row as long as the header
     */
    record Table(Path file, int line, String heading, List<String> header, List<Row> rows) {
        /** @return the index of the first column whose header contains {@code name}, or -1 */
        int column(String name) {
            for (int i = 0; i < header.size(); i++) {
                if (header.get(i).contains(name)) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * One body row of a table.
     *
     * @param line  its line in the file
     * @param cells its cells, trimmed
     */
    record Row(int line, List<String> cells) {
        /** @return the cell in {@code column}, or empty if the row is shorter */
        String cell(int column) {
            return column >= 0 && column < cells.size() ? cells.get(column) : "";
        }
    }

    /**
     * @return the checkout whose documentation is checked: {@code -Dringwire.docs.root} (the build sets it to this
     *         module's parent), else the first directory up from the working directory with a README.md and docs/
     */
    static Path root() {
        String set = System.getProperty("ringwire.docs.root");
        Path dir = Path.of(set != null ? set : System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("docs"))) {
                return d;
            }
        }
        throw new IllegalStateException("no README.md and docs/ at or above " + dir);
    }

    /** @return the lines of {@code file} */
    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return README.md and every Markdown file under docs/, in a fixed order */
    static List<Path> documentation(Path root) {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files.stream().filter(Files::isRegularFile).toList();
    }

    /** @return the fenced code blocks of {@code file}, in order */
    static List<CodeBlock> codeBlocks(Path file) {
        List<String> lines = lines(file);
        List<CodeBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(2);
            String language = open.group(3).toLowerCase(Locale.ROOT);
            String given = "";
            int before = i - 1;
            while (before >= 0 && lines.get(before).isBlank()) {
                before--;
            }
            if (before >= 0) {
                Matcher g = GIVEN.matcher(lines.get(before));
                if (g.matches()) {
                    given = g.group(1);
                }
            }
            List<String> code = new ArrayList<>();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().startsWith(fence)) {
                code.add(lines.get(j));
                j++;
            }
            blocks.add(new CodeBlock(file, i + 1, language, List.copyOf(code), given));
            i = j; // past the closing fence
        }
        return blocks;
    }

    /** @return the pipe tables of {@code file} outside code blocks, in order */
    static List<Table> tables(Path file) {
        List<String> lines = lines(file);
        List<Table> tables = new ArrayList<>();
        String heading = "";
        boolean inCode = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).matches()) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                heading = h.group(2);
                continue;
            }
            if (!isTableLine(line) || i + 1 >= lines.size() || !isDelimiterRow(lines.get(i + 1))) {
                continue;
            }
            List<String> header = cells(line).stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
            List<Row> rows = new ArrayList<>();
            int j = i + 2;
            while (j < lines.size() && isTableLine(lines.get(j))) {
                rows.add(new Row(j + 1, cells(lines.get(j))));
                j++;
            }
            tables.add(new Table(file, i + 1, heading, header, List.copyOf(rows)));
            i = j - 1;
        }
        return tables;
    }

    /** @return the text of every code span in {@code text}, e.g. {@code ringEntries(int)} for {@code `ringEntries(int)`} */
    static List<String> codeSpans(String text) {
        List<String> spans = new ArrayList<>();
        Matcher m = CODE_SPAN.matcher(text);
        while (m.find()) {
            spans.add(m.group(1).strip());
        }
        return spans;
    }

    private static boolean isTableLine(String line) {
        return line.strip().startsWith("|");
    }

    private static boolean isDelimiterRow(String line) {
        return line.strip().matches("\\|?(\\s*:?-+:?\\s*\\|)+\\s*:?-*:?\\s*\\|?");
    }

    /**
     * Splits a table row at its pipes, as GitHub does: a pipe splits cells even inside a code span unless it is
     * escaped ({@code \|}, which shows as a pipe).
     */
    private static List<String> cells(String line) {
        String s = line.strip();
        if (s.startsWith("|")) {
            s = s.substring(1);
        }
        if (s.endsWith("|") && !s.endsWith("\\|")) {
            s = s.substring(0, s.length() - 1);
        }
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return cells;
    }
}
