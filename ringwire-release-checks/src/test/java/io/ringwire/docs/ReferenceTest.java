package io.ringwire.docs;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ringwire.grpc.RingwireGrpc;
import io.ringwire.lab.cli.Lab;
import io.ringwire.micrometer.RingwireMeterBinder;
import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.transport.Ringwire;
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

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 *   <li>metrics: the meters {@link RingwireMeterBinder} registers for a live loop, each in the "meter" column of the
 *       table under the heading "Metrics", its "type", "tags" and "unit" cells as Micrometer has them; and the
 *       attributes of that loop's MBean, as the platform MBean server lists them, each in that table's "JMX
 *       attribute" column; every meter and attribute the table names is one the code has;</li>
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
    void everyMeterAndEveryJmxAttributeHasARowUnderMetricsAndNoOtherIs() throws Exception {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
        List<Markdown.Table> metrics = tables.stream()
            .filter(t -> t.heading().equals("Metrics") && t.column("meter") >= 0).toList();
        assertFalse(metrics.isEmpty(), "docs/reference.md has no table with a 'meter' column under 'Metrics'");
        Markdown.Table table = metrics.get(0);
        int meterColumn = table.column("meter");
        int jmxColumn = table.column("jmx attribute");
        assertTrue(jmxColumn >= 0, "the Metrics table has no 'JMX attribute' column");

        // one live loop, registered with JMX as -Dringwire.jmx=true does, and the binder's meters for it
        Map<String, Meter> meters = new TreeMap<>();
        Set<String> attributes = new TreeSet<>();
        String thread;
        System.setProperty(RingwireCounters.JMX_PROPERTY, "true");
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("reference-metrics"), RingwireIoHandler.newFactory());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RingwireMeterBinder binder = new RingwireMeterBinder()) {
            thread = group.next().submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
            System.clearProperty(RingwireCounters.JMX_PROPERTY);
            binder.bindTo(registry);
            for (Meter m : registry.getMeters()) {
                String loop = m.getId().getTag(RingwireMeterBinder.LOOP_TAG);
                if (loop == null || loop.equals(thread)) { // not another live loop's
                    meters.put(m.getId().getName(), m);
                }
            }
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.ringwire:type=EventLoop,name=" + ObjectName.quote(thread));
            for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
                attributes.add(a.getName());
            }
        } finally {
            System.clearProperty(RingwireCounters.JMX_PROPERTY);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            registry.close();
        }
        assertTrue(meters.containsKey("ringwire.loop.enters") && attributes.contains("Enters"),
            () -> "the loop's meters and attributes are found: " + meters.keySet() + " " + attributes);

        List<String> problems = new ArrayList<>();
        Set<String> documentedMeters = new TreeSet<>();
        Set<String> documentedAttributes = new TreeSet<>();
        for (Markdown.Row r : table.rows()) {
            Markdown.codeSpans(r.cell(jmxColumn)).forEach(documentedAttributes::add);
            for (String span : Markdown.codeSpans(r.cell(meterColumn))) {
                if (!span.startsWith("ringwire.")) {
                    continue; // "none (the `loop` tag's value)": an attribute without a meter
                }
                documentedMeters.add(span);
                Meter m = meters.get(span);
                if (m == null) {
                    problems.add("meter " + span + " (line " + r.line() + ") is documented but the binder has none");
                    continue;
                }
                String type = m.getId().getType().name().toLowerCase(Locale.ROOT);
                if (!r.cell(table.column("type")).strip().equals(type)) {
                    problems.add("meter " + span + " (line " + r.line() + "): a " + type + ", the row says '"
                        + r.cell(table.column("type")) + "'");
                }
                Set<String> tags = new TreeSet<>();
                m.getId().getTags().forEach(t -> tags.add(t.getKey()));
                Set<String> documentedTags = new TreeSet<>(Markdown.codeSpans(r.cell(table.column("tags"))));
                if (!tags.equals(documentedTags)) {
                    problems.add("meter " + span + " (line " + r.line() + "): tags " + tags + ", the row says "
                        + documentedTags);
                }
                String unit = m.getId().getBaseUnit();
                List<String> documentedUnit = Markdown.codeSpans(r.cell(table.column("unit")));
                if (!documentedUnit.equals(unit == null ? List.of() : List.of(unit))) {
                    problems.add("meter " + span + " (line " + r.line() + "): unit " + unit + ", the row says "
                        + documentedUnit);
                }
            }
        }
        for (String m : meters.keySet()) {
            if (!documentedMeters.contains(m)) {
                problems.add("meter " + m + ": the binder registers it, the Metrics table has no row for it");
            }
        }
        for (String a : attributes) {
            if (!documentedAttributes.contains(a)) {
                problems.add("JMX attribute " + a + ": the loop's MBean has it, the Metrics table does not name it");
            }
        }
        for (String a : documentedAttributes) {
            if (!attributes.contains(a)) {
                problems.add("JMX attribute " + a + " is in the Metrics table but not the loop's MBean");
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

    @Test
    void everyLabServerIsNamedInTheServersRowAndNoOtherIs() throws Exception {
        List<String> labels = labServers();
        assertTrue(labels.contains("ringwire") && labels.contains("netty-epoll"), () -> "the lab's servers: " + labels);
        List<Markdown.Row> rows = new ArrayList<>();
        for (Markdown.Table t : tablesWith("option")) {
            for (Markdown.Row r : t.rows()) {
                if (Markdown.codeSpans(r.cell(t.column("option"))).contains("--servers")) {
                    rows.add(r);
                }
            }
        }
        assertFalse(rows.isEmpty(), "docs/reference.md has no row for the lab's --servers");
        Set<String> named = new TreeSet<>();
        rows.forEach(r -> r.cells().forEach(c -> named.addAll(Markdown.codeSpans(c))));
        List<String> problems = new ArrayList<>();
        for (String label : labels) {
            if (!named.contains(label)) {
                problems.add("lab server " + label + ": not named in the --servers row (line " + rows.get(0).line()
                    + ")");
            }
        }
        Pattern serverLike = Pattern.compile("(ringwire|netty|blocking|vertx|webflux|lettuce|c)-[a-z_]+");
        for (String span : named) {
            if (serverLike.matcher(span).matches() && !labels.contains(span)) {
                problems.add("the --servers row names `" + span + "`, which is no server of the lab");
            }
        }
        assertNoProblems(problems);
    }

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * @return the labels of the lab's servers, as {@code --servers} takes them: the constants of its enum named
     *         {@code Competitor}, wherever in the lab's packages it lives
     */
    private static List<String> labServers() throws Exception {
        for (String name : ClassFiles.classNames(Lab.class)) {
            if (!name.endsWith(".Competitor")) {
                continue;
            }
            Class<?> c = Class.forName(name, false, ReferenceTest.class.getClassLoader());
            if (!c.isEnum()) {
                continue;
            }
            Method label = c.getMethod("label");
            List<String> labels = new ArrayList<>();
            for (Object constant : c.getEnumConstants()) {
                labels.add((String) label.invoke(constant));
            }
            return labels;
        }
        throw new AssertionError("the lab has no enum Competitor: find where its server names live now");
    }

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
