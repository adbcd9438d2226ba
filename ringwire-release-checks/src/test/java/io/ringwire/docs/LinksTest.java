package io.ringwire.docs;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The links of the README, the changelog and every page under docs/ lead somewhere within the repository: each relative link names a file that
 * exists, and each {@code #anchor} a heading of that file, by GitHub's rule for heading anchors (lower case, spaces
 * to hyphens, punctuation dropped, {@code -1}, {@code -2} for repeated headings).
 */
class LinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void relativeLinksAndAnchorsResolve() {
        Path root = Markdown.root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (var docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        for (Path file : pages) {
            String name = root.relativize(file).toString();
            List<String> lines = Markdown.lines(file);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.strip().startsWith("```")) {
                    inCode = !inCode;
                }
                if (inCode) {
                    continue;
                }
                Matcher m = LINK.matcher(line);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.contains("://") || target.startsWith("mailto:")) {
                        continue;
                    }
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                    String where = name + ":" + (i + 1) + " links to " + target;
                    if (!Files.exists(linked)) {
                        problems.add(where + ": no such file");
                    } else if (hash >= 0 && !anchors(linked).contains(target.substring(hash + 1))) {
                        problems.add(where + ": no such heading in " + linked.getFileName());
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }

    /** @return the anchors GitHub gives the headings of {@code file} */
    static Set<String> anchors(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : Markdown.lines(file)) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
            }
            Matcher h = HEADING.matcher(line);
            if (inCode || !h.matches()) {
                continue;
            }
            String slug = h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }
}
