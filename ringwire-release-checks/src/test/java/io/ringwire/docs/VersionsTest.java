package io.ringwire.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The versions the README and the guide name are the ones the build uses: the root pom's properties (Netty, its
 * testsuite, the frameworks) and the oldest and newest Netty that {@code ./ringwire test} runs the consumer echo on.
 * Checked: the README's compatibility table (Netty's minimum and tested versions, each framework's tested version),
 * the guide's requirements table, every "tested with ..." of the guide and the README, and every Netty 4.2 version
 * named in README.md and docs/*.md (the benchmark report aside, which records the versions of its runs) that is not
 * older than the minimum, which must be one the build tests.
 */
class VersionsTest {
    private static final Pattern NETTY = Pattern.compile("\\b4\\.2\\.(\\d+)(?:\\.Final)?\\b");
    private static final Pattern TESTED_WITH = Pattern.compile("tested with ([^)|]*)");
    private static final Pattern PRODUCT_VERSION = Pattern.compile("^\\s*(.*?)\\s+(\\d+(?:\\.\\d+)+)\\s*$");
    /** Names the documentation gives a product, lower case, and the root pom property of its version. */
    private static final Map<String, String> PRODUCTS = Map.ofEntries(
        Map.entry("netty", "netty.version"),
        Map.entry("grpc", "grpc.version"),
        Map.entry("grpc-netty", "grpc.version"),
        Map.entry("reactor netty", "reactor-netty.version"),
        Map.entry("vert.x", "vertx.version"),
        Map.entry("vertx-core", "vertx.version"),
        Map.entry("lettuce-core", "lettuce.version"),
        Map.entry("spring boot", "spring-boot.version"),
        Map.entry("micronaut", "micronaut.platform.version"),
        Map.entry("micronaut-http-server-netty", "micronaut.core.version"));

    private final Path root = Markdown.root();
    private final Map<String, String> properties = pomProperties(root.resolve("pom.xml"));
    private final String oldest = script("NETTY_OLDEST");
    private final String newest = script("NETTY_NEWEST");

    @Test
    void theReadmesCompatibilityTableNamesTheBuildsVersions() {
        List<String> problems = new ArrayList<>();
        Markdown.Table table = Markdown.tables(root.resolve("README.md")).stream()
            .filter(t -> t.column("minimum") >= 0 && t.column("tested") >= 0).findFirst()
            .orElseThrow(() -> new AssertionError("README.md has no table with 'minimum' and 'tested' columns"));
        Markdown.Row netty = row(table, "Netty");
        String minimum = netty.cell(table.column("minimum"));
        if (!minimum.contains(oldest)) {
            problems.add("README.md:" + netty.line() + ": Netty's minimum is " + oldest + " (./ringwire's NETTY_OLDEST), "
                + "the row says '" + minimum + "'");
        }
        Set<String> tested = nettyVersions(netty.cell(table.column("tested")));
        Set<String> built = new TreeSet<>(List.of(shortForm(oldest), shortForm(properties.get("netty.version")),
            shortForm(newest)));
        if (!tested.equals(built)) {
            problems.add("README.md:" + netty.line() + ": Netty tested with " + built + ", the row says " + tested);
        }
        Markdown.Row frameworks = row(table, "frameworks");
        String cell = frameworks.cell(table.column("tested"));
        Set<String> named = new TreeSet<>();
        for (String item : cell.split(",")) {
            checkProduct(item, "README.md:" + frameworks.line(), problems, named);
        }
        for (String property : List.of("grpc.version", "reactor-netty.version", "vertx.version", "spring-boot.version",
            "micronaut.platform.version")) {
            if (!named.contains(property)) {
                problems.add("README.md:" + frameworks.line() + ": the frameworks row names no version for " + property);
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void theGuidesRequirementsAndEveryTestedWithNameTheBuildsVersions() {
        List<String> problems = new ArrayList<>();
        Path guide = root.resolve("docs/guide.md");
        Markdown.Table table = Markdown.tables(guide).stream()
            .filter(t -> t.column("minimum") >= 0 && t.column("tested with") >= 0).findFirst()
            .orElseThrow(() -> new AssertionError("docs/guide.md has no requirements table"));
        Markdown.Row netty = row(table, "Netty");
        if (!netty.cell(table.column("minimum")).contains(oldest)) {
            problems.add("docs/guide.md:" + netty.line() + ": Netty's minimum is " + oldest + ", the row says '"
                + netty.cell(table.column("minimum")) + "'");
        }
        if (!netty.cell(table.column("tested with")).contains(properties.get("netty.version"))) {
            problems.add("docs/guide.md:" + netty.line() + ": the build uses Netty " + properties.get("netty.version"));
        }
        for (Path file : List.of(root.resolve("README.md"), guide)) {
            List<String> lines = Markdown.lines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = TESTED_WITH.matcher(lines.get(i));
                while (m.find()) {
                    for (String item : m.group(1).split(",")) {
                        checkProduct(item, root.relativize(file) + ":" + (i + 1), problems, new TreeSet<>());
                    }
                }
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void everySupportedNettyVersionNamedIsOneTheBuildTests() {
        Set<String> built = new TreeSet<>(List.of(shortForm(oldest), shortForm(properties.get("netty.version")),
            shortForm(properties.get("netty.testsuite.version")), shortForm(newest)));
        int minimum = patch(oldest);
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.documentation(root)) {
            if (file.getFileName().toString().equals("benchmarks.md")) {
                continue; // each run there records the Netty it ran on
            }
            List<String> lines = Markdown.lines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = NETTY.matcher(lines.get(i));
                while (m.find()) {
                    int patch = Integer.parseInt(m.group(1));
                    if (patch >= minimum && !built.contains("4.2." + patch)) {
                        problems.add(root.relativize(file) + ":" + (i + 1) + ": Netty 4.2." + patch
                            + " is none the build tests " + built);
                    }
                }
            }
        }
        assertNoProblems(problems);
    }

    /**
     * A dependency block that names a Netty artifact with a version (Maven's {@code <version>}, Gradle's
     * {@code io.netty:artifact:version}) shows the Netty the build uses, the one {@code ringwire-transport} brings: one
     * Netty module of another version beside it is the mix that production.md warns of.
     */
    @Test
    void everyNettyDependencyBlockShowsTheBuildsNetty() {
        String netty = properties.get("netty.version");
        Pattern maven = Pattern.compile("<groupId>io\\.netty</groupId>\\s*<artifactId>([\\w-]+)</artifactId>\\s*"
            + "<version>([^<]+)</version>");
        Pattern gradle = Pattern.compile("io\\.netty:([\\w-]+):([\\w.-]+)");
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.documentation(root)) {
            for (Markdown.CodeBlock b : Markdown.codeBlocks(file)) {
                if (!List.of("xml", "kotlin", "groovy").contains(b.language())) {
                    continue;
                }
                String text = String.join("\n", b.lines());
                for (Pattern p : List.of(maven, gradle)) {
                    Matcher m = p.matcher(text);
                    while (m.find()) {
                        if (!m.group(2).equals(netty)) {
                            problems.add(root.relativize(file) + ":" + b.fenceLine() + ": " + m.group(1) + " "
                                + m.group(2) + ", but the build uses Netty " + netty + " (netty.version)");
                        }
                    }
                }
            }
        }
        assertNoProblems(problems);
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** Checks "Name 1.2.3" against the pom: the version is the property's, or the start of it ("1.3" of "1.3.7"). */
    private void checkProduct(String item, String where, List<String> problems, Set<String> named) {
        Matcher m = PRODUCT_VERSION.matcher(item.replace("`", ""));
        if (!m.matches()) {
            return; // words without a version ("the unshaded artifact")
        }
        String name = m.group(1).toLowerCase(Locale.ROOT);
        String property = PRODUCTS.get(name);
        if (property == null) {
            problems.add(where + ": '" + m.group(1) + "' is no product this test knows; add its pom property here");
            return;
        }
        named.add(property);
        String version = m.group(2);
        String built = properties.get(property);
        if (!(built.equals(version) || built.startsWith(version + ".") || shortForm(built).equals(version))) {
            problems.add(where + ": " + m.group(1) + " " + version + ", but the build uses " + built + " (" + property
                + ")");
        }
    }

    private static Markdown.Row row(Markdown.Table table, String first) {
        return table.rows().stream().filter(r -> r.cell(0).equalsIgnoreCase(first)).findFirst()
            .orElseThrow(() -> new AssertionError(table.file() + ":" + table.line() + ": no row '" + first + "'"));
    }

    private static Set<String> nettyVersions(String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = NETTY.matcher(text);
        while (m.find()) {
            found.add("4.2." + m.group(1));
        }
        return found;
    }

    private static String shortForm(String version) {
        return version.replace(".Final", "");
    }

    private static int patch(String nettyVersion) {
        Matcher m = NETTY.matcher(nettyVersion);
        assertTrue(m.find(), nettyVersion);
        return Integer.parseInt(m.group(1));
    }

    /** @return the value {@code ./ringwire} gives {@code name} ({@code NAME=value} at the start of a line) */
    private String script(String name) {
        Pattern p = Pattern.compile("^" + name + "=(\\S+)$");
        for (String line : Markdown.lines(root.resolve("ringwire"))) {
            Matcher m = p.matcher(line);
            if (m.matches()) {
                return m.group(1);
            }
        }
        throw new AssertionError("./ringwire sets no " + name);
    }

    /** @return the root pom's {@code <properties>} */
    private static Map<String, String> pomProperties(Path pom) {
        String xml;
        try {
            xml = Files.readString(pom);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = xml.indexOf("<properties>");
        int end = xml.indexOf("</properties>");
        assertTrue(start >= 0 && end > start, "the root pom has properties");
        Map<String, String> found = new TreeMap<>();
        Matcher m = Pattern.compile("<([\\w.-]+)>([^<]+)</\\1>").matcher(xml.substring(start, end));
        while (m.find()) {
            found.put(m.group(1), m.group(2).strip());
        }
        return found;
    }

    private static void assertNoProblems(List<String> problems) {
        assertTrue(problems.isEmpty(), () -> "the documentation and the build disagree on versions ("
            + problems.size() + "):\n  " + String.join("\n  ", problems));
    }
}
