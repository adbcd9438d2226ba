package io.ringwire.api;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Each published module's public API is what its checked-in {@code api/<artifact>.api} file says, member by member,
 * so that an accidental public type or method fails the build and every intended one shows in review; and its module
 * descriptor exports what the API is and nothing else. After an intended change, rewrite the files with
 * {@code ./ringwire mvn -pl ringwire-release-checks -am verify -Dtest=ApiSurfaceTest -Dringwire.api.update=true} and
 * commit them with the change.
 */
class ApiSurfaceTest {
    /** A published module: its artifact (and directory), its module name, one of its classes, its exports. */
    record Published(String artifact, String module, String anchor, Set<String> exports) {
        @Override
        public String toString() {
            return artifact;
        }
    }

    static Stream<Published> published() {
        return Stream.of(
            new Published("ringwire-transport", "io.ringwire.transport", "io.ringwire.transport.RingwireIoHandler",
                Set.of("io.ringwire.transport")),
            new Published("ringwire-grpc", "io.ringwire.grpc", "io.ringwire.grpc.RingwireGrpc",
                Set.of("io.ringwire.grpc")),
            new Published("ringwire-reactor-netty", "io.ringwire.reactor", "io.ringwire.reactor.RingwireLoopResources",
                Set.of("io.ringwire.reactor")),
            new Published("ringwire-vertx", "io.ringwire.vertx", "io.ringwire.vertx.RingwireTransport",
                Set.of("io.ringwire.vertx")),
            new Published("ringwire-lettuce", "io.ringwire.lettuce", "io.ringwire.lettuce.RingwireLettuce",
                Set.of("io.ringwire.lettuce")),
            new Published("ringwire-spring-boot", "io.ringwire.spring.boot",
                "io.ringwire.spring.boot.RingwireAutoConfiguration", Set.of("io.ringwire.spring.boot")),
            new Published("ringwire-micronaut", "io.ringwire.micronaut",
                "io.ringwire.micronaut.RingwireEventLoopGroupFactory", Set.of("io.ringwire.micronaut")),
            new Published("ringwire-micrometer", "io.ringwire.micrometer",
                "io.ringwire.micrometer.RingwireMeterBinder", Set.of("io.ringwire.micrometer")));
    }

    /** Published without a module descriptor: the frameworks they serve do not run applications as modules. */
    private static final Set<String> AUTOMATIC = Set.of("ringwire-spring-boot", "ringwire-micronaut");

    private static Path root() {
        return Path.of(System.getProperty("ringwire.docs.root", "..")).toAbsolutePath().normalize();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("published")
    void theApiIsWhatItsApiFileSays(Published p) throws Exception {
        Path code = ApiSurface.codeSource(Class.forName(p.anchor(), false, getClass().getClassLoader()));
        List<String> actual = ApiSurface.of(code, p.exports());
        Path file = root().resolve(p.artifact()).resolve("api").resolve(p.artifact() + ".api");
        if (Boolean.getBoolean("ringwire.api.update")) {
            Files.createDirectories(file.getParent());
            Files.write(file, actual);
            return;
        }
        List<String> expected = ApiSurface.read(file);
        if (!expected.equals(actual)) {
            fail(p.artifact() + "'s public API differs from " + root().relativize(file) + " (- only in the file, + only "
                + "in the classes); if the change is meant, rewrite the file with -Dringwire.api.update=true and commit "
                + "it:\n" + diff(expected, actual));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("published")
    void theModuleExportsItsApiAndNothingElse(Published p) throws Exception {
        Path code = ApiSurface.codeSource(Class.forName(p.anchor(), false, getClass().getClassLoader()));
        if (AUTOMATIC.contains(p.artifact())) {
            assumeTrue(!Files.isDirectory(code), p.artifact() + "'s manifest is written at package: run verify");
            assertEquals(Optional.of(p.module()), ApiSurface.automaticModuleName(code), p.artifact()
                + "'s jar names its automatic module");
            return;
        }
        ModuleDescriptor d = descriptorOf(code, p.artifact());
        assertEquals(p.module(), d.name());
        Set<String> exported = new HashSet<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            assertEquals(Set.of(), e.targets(), p.module() + " exports " + e.source() + " to some modules only");
            exported.add(e.source());
        }
        assertEquals(p.exports(), exported, p.module() + "'s exported packages");
    }

    @Test
    void theBindingIsExportedToTheTransportAlone() throws Exception {
        Path code = ApiSurface.codeSource(Class.forName("io.ringwire.uring.IoUring", false,
            getClass().getClassLoader()));
        ModuleDescriptor d = descriptorOf(code, "ringwire-uring");
        assertEquals("io.ringwire.uring", d.name());
        assertEquals(Set.of("io.ringwire.uring -> [io.ringwire.transport]"), d.exports().stream()
            .map(e -> e.source() + " -> " + e.targets().stream().sorted().toList()).collect(Collectors.toSet()));
    }

    /** The descriptor packed with {@code code}; skipped where this build has not compiled it (it stopped at test). */
    private static ModuleDescriptor descriptorOf(Path code, String artifact) throws IOException {
        Optional<ModuleDescriptor> d = ApiSurface.descriptor(code);
        assumeTrue(d.isPresent(), artifact + "'s module descriptor is compiled at prepare-package: run verify");
        return d.get();
    }

    /** The lines only in {@code expected} (-) and only in {@code actual} (+), each in order. */
    private static String diff(List<String> expected, List<String> actual) {
        Set<String> e = new HashSet<>(expected);
        Set<String> a = new HashSet<>(actual);
        List<String> out = new ArrayList<>();
        for (String line : expected) {
            if (!a.contains(line)) {
                out.add("- " + line);
            }
        }
        for (String line : actual) {
            if (!e.contains(line)) {
                out.add("+ " + line);
            }
        }
        if (out.isEmpty()) {
            out.add("(the same lines in another order)");
        }
        return String.join("\n", out);
    }
}
