package io.ringwire.spring.boot;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.micrometer.RingwireMeterBinder;
import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireIoHandlerConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The auto-configurations on their own (no server started): what they make, when they step aside, and how the
 * {@code ringwire.*} properties reach Ringwire's loops; and the properties' metadata, which IDEs read.
 */
class RingwireAutoConfigurationTest {
    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RingwireAutoConfiguration.class,
            RingwireMetricsAutoConfiguration.class));

    @BeforeAll
    static void ringwireRunsHere() {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
    }

    @Test
    void makesAResourceFactoryOnRingwireAndTheMeters() {
        runner.run(context -> {
            ReactorResourceFactory factory = context.getBean(ReactorResourceFactory.class);
            assertFalse(factory.isUseGlobalResources(), "loops of its own, not Reactor Netty's global ones");
            assertInstanceOf(RingwireLoopResources.class, factory.getLoopResources());
            assertNotNull(context.getBean(RingwireMeterBinder.class));
        });
    }

    @Test
    void theDefaultsAreRingwiresOwn() {
        assertEquals(RingwireIoHandlerConfig.builder().build(), new RingwireProperties().ioHandlerConfig());
    }

    @Test
    void thePropertiesReachTheLoops() {
        runner.withPropertyValues("ringwire.loops=3", "ringwire.ring-entries=1024", "ringwire.cq-entries=8192",
                "ringwire.min-wait-micros=50", "ringwire.fixed-files=0", "ringwire.multishot-recv=false",
                "ringwire.bufferRingEntries=256") // Ringwire's system property names bind too
            .run(context -> {
                RingwireIoHandlerConfig config = context.getBean(RingwireProperties.class).ioHandlerConfig();
                assertEquals(1024, config.ringEntries());
                assertEquals(8192, config.cqEntries());
                assertEquals(50, config.minWaitMicros());
                assertEquals(0, config.fixedFiles());
                assertFalse(config.multishotRecv());
                assertEquals(256, config.bufferRingEntries());
                RingwireLoopResources loops = assertInstanceOf(RingwireLoopResources.class,
                    context.getBean(ReactorResourceFactory.class).getLoopResources());
                assertEquals(3, ((MultiThreadIoEventLoopGroup) loops.onServer(true)).executorCount());
            });
    }

    @Test
    void aBadSettingStopsTheApplicationNamingIt() {
        runner.withPropertyValues("ringwire.buffer-ring-entries=1000").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure);
            String messages = causes(failure);
            assertTrue(messages.contains("bufferRingEntries=1000"), messages);
        });
        runner.withPropertyValues("ringwire.loops=0").run(context -> {
            assertNotNull(context.getStartupFailure());
            assertTrue(causes(context.getStartupFailure()).contains("ringwire.loops"));
        });
    }

    @Test
    void enabledFalseTurnsItAllOff() {
        runner.withPropertyValues("ringwire.enabled=false").run(context -> {
            assertTrue(context.getBeansOfType(ReactorResourceFactory.class).isEmpty());
            assertTrue(context.getBeansOfType(RingwireMeterBinder.class).isEmpty());
        });
    }

    @Test
    void anApplicationsOwnResourceFactoryStays() {
        runner.withUserConfiguration(OwnFactory.class).run(context ->
            assertSame(OwnFactory.FACTORY, context.getBean(ReactorResourceFactory.class)));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFactory {
        static final ReactorResourceFactory FACTORY = new ReactorResourceFactory();

        @Bean
        ReactorResourceFactory ownFactory() {
            return FACTORY;
        }
    }

    @Test
    void everyPropertyHasADescriptionForIdes() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "the configuration processor's metadata");
            metadata = JsonMapper.builder().build().readTree(in);
        }
        List<String> names = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            String name = property.get("name").asString();
            names.add(name);
            assertTrue(name.startsWith("ringwire."), name);
            assertTrue(property.has("description") && !property.get("description").asString().isBlank(), name);
        }
        // enabled, loops, and one per setting of RingwireIoHandlerConfig
        assertEquals(2 + RingwireIoHandlerConfig.class.getRecordComponents().length, names.size(), names::toString);
        assertTrue(names.containsAll(List.of("ringwire.enabled", "ringwire.loops", "ringwire.ring-entries",
            "ringwire.min-wait-micros")), names::toString);
    }

    private static String causes(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append('\n');
        }
        return sb.toString();
    }
}
