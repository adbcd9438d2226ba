package io.ringwire.docs;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every {@code ```java} block of README.md and of the Markdown files under docs/ compiles against this build's
 * classes (the transport, the integrations, the lab, and what they depend on), so that a change of the API cannot
 * leave an example behind. Blocks are found afresh on every run: a block added anywhere is checked without a list.
 *
 * <p>How a block is compiled:
 * <ul>
 *   <li>A block that declares a top-level type (a line that starts with {@code class}, {@code interface},
 *       {@code record} or {@code enum}, after any modifiers) is a whole source file, as a reader would copy it: it
 *       carries its own imports. Its {@code package} line, if it has one, is replaced, since every block is compiled
 *       in a package of its own; blocks never see each other's types.</li>
 *   <li>Any other block is a fragment: statements, compiled as the body of a method
 *       {@code void snippet() throws Exception}. Import lines at its top (before the first statement) stay imports.
 *       The {@linkplain #DEFAULT_IMPORTS default imports} are there too, all of them wildcards, so an import of the
 *       block wins over them; a simple name that two of them share (Netty's, the JDK's and Vert.x's
 *       {@code Future}) needs the block's own import.</li>
 *   <li>A fragment that uses what it does not make itself (the application's gRPC service, an address, a group
 *       made in an earlier block) declares it in an HTML comment on the line before the fence, which GitHub does not
 *       show: {@code <!-- given: BindableService service, SocketAddress address -->}. What it lists becomes the
 *       method's parameters.</li>
 * </ul>
 * A failure names the file, the line of the block's fence, and each compiler error with its line in the file.
 * Blocks of other languages ({@code sh}, {@code xml}, {@code text}, none) are not compiled.
 */
class SnippetsTest {
    /** What every fragment imports besides its own imports. */
    static final List<String> DEFAULT_IMPORTS = List.of(
        "io.netty.bootstrap.*", "io.netty.buffer.*", "io.netty.channel.*", "io.netty.channel.socket.*",
        "io.netty.channel.unix.*", "io.netty.channel.epoll.*", "io.netty.util.concurrent.*",
        "io.ringwire.transport.*", "io.ringwire.grpc.*", "io.ringwire.reactor.*", "io.ringwire.vertx.*",
        "reactor.core.publisher.*", "reactor.netty.*", "reactor.netty.http.client.*", "reactor.netty.http.server.*",
        "reactor.netty.resources.*", "io.vertx.core.*", "java.net.*", "java.nio.file.*", "java.time.*",
        "java.util.*");

    private static final Pattern TYPE_DECLARATION = Pattern.compile("^(?:(?:public|protected|private|abstract|final"
        + "|static|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)");
    private static final Pattern PUBLIC_TYPE = Pattern.compile("^public\\s+(?:(?:abstract|final|static|sealed"
        + "|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)");
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;\\s*$");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+[\\w.]+\\s*;\\s*$");

    @TempDir
    static Path classes;

    /** One dynamic test per Java block, all compiled together once. */
    @TestFactory
    List<DynamicTest> everyJavaBlockCompiles() {
        Path root = Markdown.root();
        List<Source> sources = new ArrayList<>();
        for (Path file : Markdown.documentation(root)) {
            for (Markdown.CodeBlock b : Markdown.codeBlocks(file)) {
                if (b.language().equals("java")) {
                    sources.add(Source.of(b, sources.size()));
                }
            }
        }
        assertTrue(sources.stream().anyMatch(s -> s.block.file().endsWith(Path.of("docs", "guide.md"))),
            "docs/guide.md has Java blocks, and they are found");
        Map<Source, List<String>> errors = compile(sources);
        List<DynamicTest> tests = new ArrayList<>();
        for (Source s : sources) {
            String where = root.relativize(s.block.file()) + ":" + s.block.fenceLine();
            tests.add(DynamicTest.dynamicTest(where, () -> {
                List<String> e = errors.get(s);
                if (!e.isEmpty()) {
                    fail("the Java block at " + where + " does not compile" + (s.fragment
                        ? " (a fragment: the body of a method, see SnippetsTest's Javadoc)" : "") + ":\n  "
                        + String.join("\n  ", e));
                }
            }));
        }
        return tests;
    }

    /** Dependency blocks that name a Ringwire artifact show the version this build makes. */
    @Test
    void dependencyBlocksShowThisVersion() {
        String version = System.getProperty("ringwire.docs.version");
        if (version == null) {
            return; // run outside Maven: nothing to compare with
        }
        Pattern maven = Pattern.compile("<artifactId>ringwire-[\\w-]+</artifactId>\\s*<version>([^<]+)</version>");
        Pattern gradle = Pattern.compile("io\\.ringwire:ringwire-[\\w-]+:([\\w.-]+)");
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.documentation(Markdown.root())) {
            for (Markdown.CodeBlock b : Markdown.codeBlocks(file)) {
                String text = String.join("\n", b.lines());
                for (Pattern p : List.of(maven, gradle)) {
                    Matcher m = p.matcher(text);
                    while (m.find()) {
                        if (!m.group(1).equals(version)) {
                            problems.add(file.getFileName() + ":" + b.fenceLine() + " shows " + m.group(1)
                                + ", the build makes " + version);
                        }
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }

    /**
     * A reader copies a block with its imports, and the default imports above are not on the page: every type of
     * Ringwire's API (the types the {@code api/*.api} files list) that a page's Java blocks name is imported by one of
     * that page's blocks (by name or with its package's wildcard), or the page names its package in a code span
     * ({@code `io.ringwire.transport`}), so that its package is never to be guessed.
     */
    @Test
    void everyRingwireTypeABlockNamesHasItsPackageOnThePage() {
        Path root = Markdown.root();
        Map<String, String> apiTypes = new HashMap<>(); // simple name -> package
        Pattern type = Pattern.compile("^public\\s+(?:[\\w-]+\\s+)*(?:class|interface|enum|record|@interface)\\s+"
            + "(io\\.ringwire(?:\\.\\w+)+)\\.([A-Z]\\w*)(?:[<\\s].*)?$"); // then type parameters, supertypes
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(root)) {
            for (Path module : files.toList()) {
                Path api = module.resolve("api").resolve(module.getFileName() + ".api");
                if (java.nio.file.Files.isRegularFile(api)) {
                    for (String line : Markdown.lines(api)) {
                        Matcher m = type.matcher(line);
                        if (m.matches()) {
                            apiTypes.put(m.group(2), m.group(1));
                        }
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertTrue(apiTypes.containsKey("Ringwire") && apiTypes.containsKey("BestTransport"),
            "the api/*.api files list Ringwire's types: " + apiTypes.keySet());
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.documentation(root)) {
            List<Markdown.CodeBlock> java = Markdown.codeBlocks(file).stream()
                .filter(b -> b.language().equals("java")).toList();
            String page = String.join("\n", Markdown.lines(file));
            java.util.Set<String> imported = new java.util.HashSet<>();
            for (Markdown.CodeBlock b : java) {
                for (String line : b.lines()) {
                    Matcher m = Pattern.compile("^\\s*import\\s+([\\w.]+(?:\\.\\*)?)\\s*;").matcher(line);
                    if (m.find()) {
                        imported.add(m.group(1));
                    }
                }
            }
            Map<String, Integer> unplaced = new java.util.TreeMap<>();
            for (Markdown.CodeBlock b : java) {
                for (Map.Entry<String, String> t : apiTypes.entrySet()) {
                    String pkg = t.getValue();
                    if (imported.contains(pkg + "." + t.getKey()) || imported.contains(pkg + ".*")
                        || page.contains("`" + pkg + "`")) {
                        continue;
                    }
                    Pattern named = Pattern.compile("\\b" + t.getKey() + "\\b");
                    if (b.lines().stream().anyMatch(l -> named.matcher(l).find())) {
                        unplaced.putIfAbsent(t.getKey() + " (" + pkg + ")", b.fenceLine());
                    }
                }
            }
            unplaced.forEach((t, line) -> problems.add(root.relativize(file) + ":" + line + " names " + t
                + ", which no block of the page imports and whose package the page does not name"));
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }

    /** Compiles every source in one javac run and returns each one's errors, with their lines in the Markdown. */
    private static Map<Source, List<String>> compile(List<Source> sources) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "a JDK's compiler (javax.tools), not a JRE");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> options = List.of("--release", "22", "-proc:none", "-classpath", classPath,
            "-d", classes.toString(), "-Xmaxerrs", "10000",
            // go on attributing every block after the first error, so that each reports its own
            "-XDshould-stop.ifError=FLOW");
        Map<JavaFileObject, Source> byFile = new HashMap<>();
        sources.forEach(s -> byFile.put(s.file, s));
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
            StandardCharsets.UTF_8)) {
            javac.getTask(null, files, diagnostics, options, null, byFile.keySet()).call();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<Source, List<String>> errors = new HashMap<>();
        sources.forEach(s -> errors.put(s, new ArrayList<>()));
        List<Diagnostic<? extends JavaFileObject>> all = new ArrayList<>(diagnostics.getDiagnostics());
        all.sort(java.util.Comparator.comparingLong(Diagnostic::getLineNumber)); // each block's errors in line order
        for (Diagnostic<? extends JavaFileObject> d : all) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            Source s = byFile.get(d.getSource());
            if (s == null) {
                fail("javac: " + d.getMessage(Locale.ROOT));
            }
            long line = d.getLineNumber();
            String at = line > 0 && line <= s.origins.size() && s.origins.get((int) line - 1) > 0
                ? "line " + s.origins.get((int) line - 1) : "in the wrapper around it";
            errors.get(s).add(at + ": " + d.getMessage(Locale.ROOT));
        }
        return errors;
    }

    /**
     * A block made into a Java source file.
     *
     * @param block    the block
     * @param file     the source file javac reads
     * @param origins  for each line of the source file, its line in the Markdown file (0 for lines added around it)
     * @param fragment whether the block is a fragment, wrapped in a class and a method
     */
    private record Source(Markdown.CodeBlock block, JavaFileObject file, List<Integer> origins, boolean fragment) {
        static Source of(Markdown.CodeBlock block, int index) {
            String pkg = "snippets.b" + index;
            List<String> code = block.lines();
            int first = block.fenceLine() + 1;
            List<String> out = new ArrayList<>();
            List<Integer> origins = new ArrayList<>();
            out.add("package " + pkg + ";");
            origins.add(0);
            String typeName = "Snippet";
            boolean declaresType = code.stream().anyMatch(l -> TYPE_DECLARATION.matcher(l).find());
            if (declaresType) {
                for (int i = 0; i < code.size(); i++) {
                    String line = code.get(i);
                    Matcher pub = PUBLIC_TYPE.matcher(line);
                    if (pub.find()) {
                        typeName = pub.group(1);
                    }
                    out.add(PACKAGE.matcher(line).matches() ? "" : line);
                    origins.add(first + i);
                }
            } else {
                for (String i : DEFAULT_IMPORTS) {
                    out.add("import " + i + ";");
                    origins.add(0);
                }
                int body = 0;
                while (body < code.size() && (code.get(body).isBlank() || IMPORT.matcher(code.get(body)).matches()
                    || code.get(body).strip().startsWith("//"))) {
                    body++;
                }
                for (int i = 0; i < body; i++) {
                    out.add(code.get(i));
                    origins.add(first + i);
                }
                out.add("@SuppressWarnings(\"all\") class Snippet {");
                origins.add(0);
                out.add("    void snippet(" + block.given() + ") throws Exception {");
                origins.add(0);
                for (int i = body; i < code.size(); i++) {
                    out.add(code.get(i));
                    origins.add(first + i);
                }
                out.add("    }");
                origins.add(0);
                out.add("}");
                origins.add(0);
            }
            String text = String.join("\n", out) + "\n";
            URI uri = URI.create("string:///" + pkg.replace('.', '/') + "/" + typeName + ".java");
            JavaFileObject file = new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return text;
                }
            };
            return new Source(block, file, List.copyOf(origins), !declaresType);
        }
    }
}
