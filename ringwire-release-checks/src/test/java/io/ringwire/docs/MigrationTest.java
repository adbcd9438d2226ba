package io.ringwire.docs;

import io.netty.channel.ChannelOption;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.channel.uring.IoUringBufferRingConfig;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireIoHandlerConfig;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/migration.md maps all of Netty's io_uring transport, as this build's Netty has it: every public setter of
 * {@code IoUringIoHandlerConfig}, every builder method of {@code IoUringBufferRingConfig} and every option of
 * {@code IoUringChannelOption} (with the two it inherits from {@code UnixChannelOption}) is a row, shown as a code
 * span in the first column of a table whose header names "Netty io_uring" or {@code IoUringBufferRingConfig}. And
 * what the Ringwire side names exists: each {@code RingwireChannelOption.X} is a field of it, each {@code name(type)}
 * a builder method of {@code RingwireIoHandlerConfig}.
 */
class MigrationTest {
    private static final Pattern CALL = Pattern.compile("([a-z][A-Za-z]*)\\((int|boolean)\\)");

    private final Path migration = Markdown.root().resolve("docs/migration.md");

    @Test
    void everySettingAndOptionOfNettysIoUringTransportHasARow() {
        List<Markdown.Table> tables = Markdown.tables(migration).stream()
            .filter(t -> t.header().get(0).contains("netty io_uring")
                || t.header().get(0).contains("iouringbufferringconfig"))
            .toList();
        assertFalse(tables.isEmpty(), "docs/migration.md has no table whose first column is Netty io_uring's");
        Set<String> firstColumn = new TreeSet<>();
        tables.forEach(t -> t.rows().forEach(r -> firstColumn.addAll(Markdown.codeSpans(r.cell(0)))));
        List<String> problems = new ArrayList<>();
        for (Method m : IoUringIoHandlerConfig.class.getMethods()) {
            if (m.getDeclaringClass() == IoUringIoHandlerConfig.class && m.getName().startsWith("set")) {
                expect(firstColumn, signature(m), problems);
            }
        }
        for (Method m : IoUringBufferRingConfig.Builder.class.getMethods()) {
            if (m.getDeclaringClass() == IoUringBufferRingConfig.Builder.class && !m.getName().equals("build")) {
                expect(firstColumn, signature(m), problems);
            }
        }
        for (Field f : Stream.concat(Stream.of(IoUringChannelOption.class.getDeclaredFields()),
            Stream.of(UnixChannelOption.class.getDeclaredFields())).toList()) {
            if (Modifier.isPublic(f.getModifiers()) && Modifier.isStatic(f.getModifiers())
                && ChannelOption.class.isAssignableFrom(f.getType())) {
                boolean found = firstColumn.stream().anyMatch(s -> s.equals(f.getName())
                    || s.endsWith("." + f.getName()));
                if (!found) {
                    problems.add(f.getDeclaringClass().getSimpleName() + "." + f.getName() + ": no row");
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> "docs/migration.md lacks (" + problems.size() + "):\n  "
            + String.join("\n  ", problems));
    }

    @Test
    void whatTheRingwireSideNamesExists() {
        Set<String> options = new TreeSet<>();
        for (Field f : RingwireChannelOption.class.getFields()) {
            options.add(f.getName());
        }
        Set<String> settings = new TreeSet<>();
        for (Method m : RingwireIoHandlerConfig.Builder.class.getMethods()) {
            if (m.getParameterCount() == 1) {
                settings.add(signature(m));
            }
        }
        List<String> problems = new ArrayList<>();
        for (Markdown.Table t : Markdown.tables(migration)) {
            for (Markdown.Row r : t.rows()) {
                for (int c = 1; c < r.cells().size(); c++) {
                    for (String span : Markdown.codeSpans(r.cell(c))) {
                        if (span.startsWith("RingwireChannelOption.")
                            && !options.contains(span.substring("RingwireChannelOption.".length()))) {
                            problems.add("line " + r.line() + ": `" + span + "` is no field of RingwireChannelOption");
                        }
                        Matcher m = CALL.matcher(span);
                        if (m.matches() && !settings.contains(span)) {
                            problems.add("line " + r.line() + ": `" + span + "` is no method of "
                                + "RingwireIoHandlerConfig.Builder");
                        }
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }

    private static void expect(Set<String> firstColumn, String signature, List<String> problems) {
        if (!firstColumn.contains(signature)) {
            problems.add("`" + signature + "`: no row");
        }
    }

    /** @return e.g. {@code setRingSize(int)} */
    private static String signature(Method m) {
        String parameters = Stream.of(m.getParameterTypes()).map(Class::getSimpleName)
            .reduce((a, b) -> a + ", " + b).orElse("");
        return m.getName() + "(" + (m.isVarArgs() ? parameters.replaceAll("\\[]$", "...") : parameters) + ")";
    }
}
