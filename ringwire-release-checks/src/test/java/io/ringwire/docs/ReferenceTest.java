package io.ringwire.docs;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringwire.grpc.RingwireGrpc;
import io.ringwire.lab.cli.Lab;
import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireLoopMXBean;
import io.ringwire.uring.IoUring;
import io.ringwire.vertx.RingwireTransport;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/reference.md names everything a user can set or read, as the code has it now: adding a setting, a system
 * property, a channel option, a counter or a lab option without a row for it there fails this test, naming what is
 * missing; so does a row for something the code no longer has.
 *
 * <p>What is compared, and where the code's side comes from:
 * <ul>
 *   <li>settings: the public methods of {@link RingwireIoHandlerConfig.Builder} (and the record's components, which
 *       each need one), each a row of a table with a "builder method" column showing {@code `name(type)`}; its
 *       "default" cell starts with the value {@code builder().build()} gives, its "system property" cell names the
 *       property the builder reads;</li>
 *   <li>system properties: every {@code ringwire.*} string constant compiled into the library modules, the lab and
 *       the examples ({@link ClassFiles}), each in some table's "system property" column; and every property
 *       such a column names is one the code has;</li>
 *   <li>channel options: the public static {@link ChannelOption} fields of {@link RingwireChannelOption}, each a row
 *       of the table with an "option" and a "channels" column, its "type" cell naming the value type; and per channel
 *       class of the transport, every option its config lists beyond Netty's generic ones, in that channel's row of
 *       the table with a "channel" and an "options" column;</li>
 *   <li>counters: the public getters of {@link RingwireCounters}, each {@code `name()`} in a "counter" column, and
 *       the attributes of {@link RingwireLoopMXBean}, each in a "JMX attribute" column;</li>
 *   <li>lab options: picocli's model of {@link Lab}; the options every workload shares (and help and version) in a
 *       table under a heading that says "every workload", each command's own options and parameters in a table under
 *       a heading that shows {@code `lab <command>`}, with the option's default in the "default" cell.</li>
 * </ul>
 */
class ReferenceTest {
    private static final Pattern PROPERTY = Pattern.compile("ringwire\\.[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]");

    private final Path reference = Markdown.root().resolve("docs/reference.md");
    private final List<Markdown.Table> tables = Markdown.tables(reference);

    @Test
    void everySettingHasARowWithItsBuilderMethodPropertyAndDefault() throws Exception {
        List<Markdown.Table> settings = tablesWith("builder method");
        assertFalse(settings.isEmpty(), "docs/reference.md has no table with a 'builder method' column");
        Set<String> properties = codeProperties();
        RingwireIoHandlerConfig defaults = RingwireIoHandlerConfig.builder().build();
        List<String> problems = new ArrayList<>();
        List<Method> methods = Stream.of(RingwireIoHandlerConfig.Builder.class.getMethods())
            .filter(m -> m.getDeclaringClass() == RingwireIoHandlerConfig.Builder.class)
            .filter(m -> !m.getName().equals("build"))
            .toList();
        for (RecordComponent c : RingwireIoHandlerConfig.class.getRecordComponents()) {
            if (methods.stream().noneMatch(m -> m.getName().equals(c.getName()))) {
                problems.add("setting " + c.getName() + " has no builder method");
            }
        }
        for (Method m : methods) {
            String name = m.getName();
            String signature = name + "(" + m.getParameterTypes()[0].getSimpleName() + ")";
            Markdown.Row row = findRow(settings, "builder method", span -> span.equals(signature));
            if (row == null) {
                problems.add("setting " + name + ": no row whose 'builder method' cell shows `" + signature + "`");
                continue;
            }
            Markdown.Table table = tableOf(settings, row);
            String property = "ringwire." + name;
            if (properties.contains(property)
                && !Markdown.codeSpans(row.cell(table.column("system property"))).contains(property)) {
                problems.add("setting " + name + " (line " + row.line() + "): its 'system property' cell does not "
                    + "name `" + property + "`");
            }
            Object value = RingwireIoHandlerConfig.class.getMethod(name).invoke(defaults);
            String cell = row.cell(table.column("default")).replace("`", "").strip();
            if (!cell.startsWith(String.valueOf(value))) {
                problems.add("setting " + name + " (line " + row.line() + "): default is " + value + ", the row says '"
                    + cell + "'");
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void everySystemPropertyTheCodeReadsIsDocumentedAndNoOtherIs() {
        Set<String> inCode = codeProperties();
        Set<String> documented = new TreeSet<>();
        for (Markdown.Table t : tablesWith("system property")) {
            int column = t.column("system property");
            for (Markdown.Row r : t.rows()) {
                for (String span : Markdown.codeSpans(r.cell(column))) {
                    var m = PROPERTY.matcher(span);
                    if (m.lookingAt()) {
                        documented.add(m.group());
                    }
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (String p : inCode) {
            if (!documented.contains(p)) {
                problems.add("system property " + p + " is read by the code but in no 'system property' column");
            }
        }
        for (String p : documented) {
            if (!inCode.contains(p)) {
                problems.add("system property " + p + " is documented but the code has no such string");
            }
        }
        assertTrue(inCode.contains(io.ringwire.transport.Ringwire.DISABLE_PROPERTY), () -> "the scan works: "
            + inCode);
        assertNoProblems(problems);
    }

    @Test
    void everyRingwireChannelOptionHasARowWithItsType() throws Exception {
        List<Markdown.Table> options = tables.stream()
            .filter(t -> t.column("option") == 0 && t.column("channels") >= 0).toList();
        assertFalse(options.isEmpty(), "docs/reference.md has no table with 'option' and 'channels' columns");
        List<String> problems = new ArrayList<>();
        Set<String> fields = new TreeSet<>();
        for (Field f : RingwireChannelOption.class.getFields()) {
            if (f.getDeclaringClass() != RingwireChannelOption.class || !Modifier.isStatic(f.getModifiers())
                || !ChannelOption.class.isAssignableFrom(f.getType())) {
                continue;
            }
            fields.add(f.getName());
            Markdown.Row row = findRow(options, "option", span -> span.equals(f.getName())
                || span.equals("RingwireChannelOption." + f.getName()));
            if (row == null) {
                problems.add("channel option " + f.getName() + ": no row in the channel options table");
                continue;
            }
            String type = valueTypeName(f.getGenericType());
            String cell = row.cell(tableOf(options, row).column("type"));
            if (!cell.contains(type)) {
                problems.add("channel option " + f.getName() + " (line " + row.line() + "): its value type is "
                    + type + ", the row says '" + cell + "'");
            }
        }
        for (Markdown.Table t : options) {
            for (Markdown.Row r : t.rows()) {
                for (String span : Markdown.codeSpans(r.cell(0))) {
                    String name = span.substring(span.lastIndexOf('.') + 1);
                    if (!fields.contains(name)) {
                        problems.add("line " + r.line() + ": `" + span + "` is not a field of RingwireChannelOption");
                    }
                }
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void everyChannelClassListsTheOptionsItsConfigTakes() throws Exception {
        List<Markdown.Table> perChannel = tables.stream()
            .filter(t -> t.column("channel") == 0 && t.column("options") >= 0).toList();
        assertFalse(perChannel.isEmpty(), "docs/reference.md has no table with 'channel' and 'options' columns");
        Set<String> generic = new TreeSet<>();
        EmbeddedChannel plain = new EmbeddedChannel();
        try {
            plain.config().getOptions().keySet().forEach(o -> generic.add(o.name()));
        } finally {
            plain.close();
        }
        List<String> problems = new ArrayList<>();
        List<Class<?>> channels = transportChannelClasses();
        assertTrue(channels.size() >= 6, () -> "the scan finds the channel classes: " + channels);
        for (Class<?> type : channels) {
            Markdown.Row row = findRow(perChannel, "channel", span -> span.equals(type.getSimpleName()));
            if (row == null) {
                problems.add("channel " + type.getSimpleName() + ": no row in the options-per-channel table");
                continue;
            }
            List<String> spans = Markdown.codeSpans(row.cell(tableOf(perChannel, row).column("options")));
            Channel channel = (Channel) type.getConstructor().newInstance();
            try {
                for (ChannelOption<?> o : channel.config().getOptions().keySet()) {
                    if (generic.contains(o.name())) {
                        continue;
                    }
                    String name = o.name().substring(o.name().indexOf('#') + 1);
                    if (spans.stream().noneMatch(s -> s.equals(name) || s.endsWith("." + name))) {
                        problems.add(type.getSimpleName() + " (line " + row.line() + ") takes " + name
                            + ", its row does not name it");
                    }
                }
            } finally {
                channel.unsafe().closeForcibly(); // never registered: nothing but the socket to close
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void everyCounterAndEveryJmxAttributeHasARow() {
        List<Markdown.Table> counters = tablesWith("jmx attribute");
        assertFalse(counters.isEmpty(), "docs/reference.md has no table with a 'JMX attribute' column");
        List<String> problems = new ArrayList<>();
        for (Method m : RingwireCounters.class.getMethods()) {
            if (m.getDeclaringClass() != RingwireCounters.class || Modifier.isStatic(m.getModifiers())
                || m.getParameterCount() > 0 || m.getName().equals("toString")) {
                continue;
            }
            String span = m.getName() + "()";
            if (findRow(counters, "counter", s -> s.equals(span)) == null) {
                problems.add("counter " + m.getName() + ": no row whose 'counter' cell shows `" + span + "`");
            }
        }
        for (Method m : RingwireLoopMXBean.class.getMethods()) {
            String attribute = m.getName().substring(3);
            if (findRow(counters, "jmx attribute", s -> s.equals(attribute)) == null) {
                problems.add("JMX attribute " + attribute + ": in no 'JMX attribute' cell");
            }
        }
        assertNoProblems(problems);
    }

    @Test
    void everyLabCommandAndOptionHasARowUnderItsCommand() {
        CommandSpec lab = new CommandLine(new Lab()).getCommandSpec();
        Set<String> shared = new LinkedHashSet<>();
        for (String mixin : List.of("common", "mixinStandardHelpOptions")) {
            CommandSpec m = lab.mixins().get(mixin);
            assertTrue(m != null, () -> "the lab's " + mixin + " mixin: " + lab.mixins().keySet());
            m.options().forEach(o -> shared.add(o.longestName()));
        }
        List<Markdown.Table> sharedTables = tables.stream()
            .filter(t -> t.heading().toLowerCase(java.util.Locale.ROOT).contains("every workload")).toList();
        assertFalse(sharedTables.isEmpty(), "docs/reference.md has no table under a heading about every workload");
        List<String> problems = new ArrayList<>();
        List<CommandSpec> commands = new ArrayList<>();
        commands.add(lab);
        lab.subcommands().values().forEach(c -> commands.add(c.getCommandSpec()));
        for (CommandSpec command : commands) {
            String title = command == lab ? "lab" : "lab " + command.name();
            if (!headingExists(title)) {
                problems.add("`" + title + "`: no heading that shows `" + title + "`");
            }
            List<Markdown.Table> own = tables.stream()
                .filter(t -> Markdown.codeSpans(t.heading()).contains(title)).toList();
            for (ArgSpec arg : command.args()) {
                String name = arg instanceof OptionSpec o ? o.longestName() : ((PositionalParamSpec) arg).paramLabel();
                List<Markdown.Table> where = shared.contains(name) ? sharedTables : own;
                Markdown.Row row = findRow(where, "option", s -> s.equals(name) || s.startsWith(name + " ")
                    || s.startsWith(name + "="));
                if (row == null) {
                    problems.add("`" + title + "` " + name + ": no row in "
                        + (shared.contains(name) ? "the table of options every workload shares" : "its table"));
                    continue;
                }
                String defaultValue = arg.defaultValue();
                int column = tableOf(where, row).column("default");
                if (defaultValue != null && column >= 0 && !row.cell(column).contains(defaultValue)) {
                    problems.add("`" + title + "` " + name + " (line " + row.line() + "): default is " + defaultValue
                        + ", the row says '" + row.cell(column) + "'");
                }
            }
        }
        assertNoProblems(problems);
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** @return the {@code ringwire.*} string constants of the library modules, the lab and the examples */
    static Set<String> codeProperties() {
        Set<String> found = new TreeSet<>();
        for (Class<?> module : List.of(IoUring.class, RingwireIoHandler.class, RingwireGrpc.class,
            RingwireLoopResources.class, RingwireTransport.class, Lab.class,
            io.ringwire.examples.EchoServer.class)) {
            for (String s : ClassFiles.stringConstants(module)) {
                if (PROPERTY.matcher(s).matches()) {
                    found.add(s);
                }
            }
        }
        return found;
    }

    /** @return the public, concrete channel classes of the transport with a public no-argument constructor */
    private static List<Class<?>> transportChannelClasses() throws Exception {
        List<Class<?>> found = new ArrayList<>();
        for (String name : ClassFiles.classNames(RingwireIoHandler.class)) {
            if (!name.startsWith("io.ringwire.transport.") || name.contains("$")) {
                continue;
            }
            Class<?> c = Class.forName(name, false, ReferenceTest.class.getClassLoader());
            if (Channel.class.isAssignableFrom(c) && Modifier.isPublic(c.getModifiers())
                && !Modifier.isAbstract(c.getModifiers())) {
                c.getConstructor(); // every Ringwire channel can be made without arguments
                found.add(c);
            }
        }
        return found;
    }

    private boolean headingExists(String title) {
        return Markdown.lines(reference).stream()
            .anyMatch(l -> l.startsWith("#") && Markdown.codeSpans(l).contains(title));
    }

    private static String valueTypeName(Type optionType) {
        Type arg = ((ParameterizedType) optionType).getActualTypeArguments()[0];
        Type raw = arg instanceof ParameterizedType p ? p.getRawType() : arg;
        return ((Class<?>) raw).getSimpleName();
    }

    private List<Markdown.Table> tablesWith(String column) {
        return tables.stream().filter(t -> t.column(column) >= 0).toList();
    }

    /** @return the first row of {@code in} whose {@code column} cell has a code span {@code match} accepts */
    private static Markdown.Row findRow(List<Markdown.Table> in, String column, Predicate<String> match) {
        for (Markdown.Table t : in) {
            int c = t.column(column);
            for (Markdown.Row r : t.rows()) {
                if (Markdown.codeSpans(r.cell(c)).stream().anyMatch(match)) {
                    return r;
                }
            }
        }
        return null;
    }

    private static Markdown.Table tableOf(List<Markdown.Table> in, Markdown.Row row) {
        return in.stream().filter(t -> t.rows().contains(row)).findFirst().orElseThrow();
    }

    private static void assertNoProblems(List<String> problems) {
        assertTrue(problems.isEmpty(), () -> "docs/reference.md and the code disagree (" + problems.size() + "):\n  "
            + String.join("\n  ", problems));
    }
}
