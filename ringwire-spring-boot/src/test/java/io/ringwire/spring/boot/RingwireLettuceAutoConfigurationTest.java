package io.ringwire.spring.boot;

import io.lettuce.core.resource.ClientResources;
import io.ringwire.lettuce.RingwireLettuce;
import io.ringwire.transport.Ringwire;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.util.ReflectionTestUtils;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Lettuce auto-configuration with Boot's Spring Data Redis one, no Redis server needed (a connection factory
 * makes its Lettuce client when it starts, and connects on first use): what it makes Ringwire's, what it leaves alone,
 * and that an application without Spring Data Redis, Lettuce or {@code ringwire-lettuce} starts as before.
 */
class RingwireLettuceAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RingwireLettuceAutoConfiguration.class,
            DataRedisAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.host=127.0.0.1");

    @BeforeAll
    static void ringwireRunsHere() {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
    }

    @Test
    void bootsConnectionFactoryAndClientResourcesAreRingwires() {
        runner.run(context -> {
            assertTrue(RingwireLettuce.isRingwire(context.getBean(ClientResources.class)));
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            assertInstanceOf(RingwireLettuceConnectionFactory.class, factory);
            assertEquals("io.ringwire.lettuce.RingwireRedisClient", factory.getRequiredNativeClient().getClass().getName());
            assertEquals("127.0.0.1", factory.getHostName());
        });
    }

    @Test
    void everyKindOfConfigurationGetsRingwiresClient() {
        List<RedisConfiguration> configurations = List.of(
            new RedisStandaloneConfiguration("127.0.0.1", 6390),
            new RedisClusterConfiguration(List.of("127.0.0.1:7000", "127.0.0.1:7001")),
            new RedisSentinelConfiguration("primary", Set.of("127.0.0.1:26379")),
            masterReplica());
        for (RedisConfiguration configuration : configurations) {
            runner.withUserConfiguration(OwnFactory.class)
                .withBean("ownConfiguration", RedisConfiguration.class, () -> configuration)
                .run(context -> {
                    LettuceConnectionFactory factory = context.getBean("ownFactory", LettuceConnectionFactory.class);
                    assertInstanceOf(RingwireLettuceConnectionFactory.class, factory, configuration::toString);
                    String client = factory.getRequiredNativeClient().getClass().getName();
                    assertEquals(configuration instanceof RedisClusterConfiguration
                        ? "io.ringwire.lettuce.RingwireRedisClusterClient" : "io.ringwire.lettuce.RingwireRedisClient",
                        client, configuration::toString);
                    assertSame(configuration, ReflectionTestUtils.getField(factory, "configuration"));
                });
        }
    }

    private static RedisStaticMasterReplicaConfiguration masterReplica() {
        RedisStaticMasterReplicaConfiguration configuration = new RedisStaticMasterReplicaConfiguration("127.0.0.1", 6391);
        configuration.addNode("127.0.0.1", 6392);
        return configuration;
    }

    @Test
    void anApplicationsFactoryKeepsItsSettings() {
        runner.withUserConfiguration(OwnFactory.class)
            .withBean("ownConfiguration", RedisConfiguration.class, () -> new RedisStandaloneConfiguration("127.0.0.1", 6390))
            .run(context -> {
                LettuceConnectionFactory factory = context.getBean("ownFactory", LettuceConnectionFactory.class);
                assertInstanceOf(RingwireLettuceConnectionFactory.class, factory);
                assertFalse(factory.getShareNativeConnection());
                assertTrue(factory.getValidateConnection());
                assertFalse(factory.getConvertPipelineAndTxResults());
                assertEquals(42, factory.getPhase());
                assertEquals(3, factory.getDatabase());
                assertSame(OwnFactory.EXECUTOR, ReflectionTestUtils.getField(factory, "executor"));
                assertSame(context.getBean(LettuceClientConfiguration.class), factory.getClientConfiguration());
            });
    }

    /** An application's own factory on Boot's client resources, with settings of its own. */
    @Configuration(proxyBeanMethods = false)
    static class OwnFactory {
        static final SimpleAsyncTaskExecutor EXECUTOR = new SimpleAsyncTaskExecutor("own-");

        @Bean
        LettuceClientConfiguration ownClientConfiguration(ClientResources resources) {
            return LettuceClientConfiguration.builder().clientResources(resources).build();
        }

        @Bean
        LettuceConnectionFactory ownFactory(RedisConfiguration ownConfiguration, LettuceClientConfiguration client) {
            if (ownConfiguration instanceof RedisStandaloneConfiguration standalone) {
                standalone.setDatabase(3);
            }
            LettuceConnectionFactory factory = new LettuceConnectionFactory(ownConfiguration, client);
            factory.setShareNativeConnection(false);
            factory.setValidateConnection(true);
            factory.setConvertPipelineAndTxResults(false);
            factory.setPhase(42);
            factory.setExecutor(EXECUTOR);
            return factory;
        }
    }

    @Test
    void anApplicationsOwnClientResourcesStayLettuces() {
        runner.withBean(ClientResources.class, ClientResources::create).run(context -> {
            assertFalse(RingwireLettuce.isRingwire(context.getBean(ClientResources.class)));
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            assertSame(LettuceConnectionFactory.class, factory.getClass());
            assertSame(io.lettuce.core.RedisClient.class, factory.getRequiredNativeClient().getClass());
        });
    }

    @Test
    void aFactorySubclassOnRingwiresResourcesStopsTheApplicationNamingIt() {
        runner.withUserConfiguration(SubclassFactory.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure);
            StringBuilder messages = new StringBuilder();
            for (Throwable t = failure; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertTrue(messages.toString().contains("Bean 'subclassFactory' (" + SubclassFactory.Own.class.getName()),
                messages::toString);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class SubclassFactory {
        static final class Own extends LettuceConnectionFactory {
            Own(LettuceClientConfiguration client) {
                super(new RedisStandaloneConfiguration("127.0.0.1", 6390), client);
            }
        }

        @Bean
        LettuceConnectionFactory subclassFactory(ClientResources resources) {
            return new Own(LettuceClientConfiguration.builder().clientResources(resources).build());
        }
    }

    @Test
    void enabledFalseLeavesLettuceAsItIs() {
        runner.withPropertyValues("ringwire.enabled=false").run(context -> {
            assertTrue(context.getBeansOfType(ClientResourcesBuilderCustomizer.class).isEmpty());
            assertFalse(RingwireLettuce.isRingwire(context.getBean(ClientResources.class)));
            assertSame(LettuceConnectionFactory.class, context.getBean(LettuceConnectionFactory.class).getClass());
        });
    }

    @Test
    void withoutRingwireLettuceBootsRedisStaysAsItIs() {
        runner.withClassLoader(new FilteredClassLoader(RingwireLettuce.class)).run(context -> {
            assertTrue(context.getBeansOfType(ClientResourcesBuilderCustomizer.class).isEmpty());
            assertSame(LettuceConnectionFactory.class, context.getBean(LettuceConnectionFactory.class).getClass());
        });
    }

    @Test
    void anApplicationWithoutSpringDataRedisOrLettuceStartsAsBefore() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingwireAutoConfiguration.class,
                RingwireLettuceAutoConfiguration.class, RingwireMetricsAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce",
                "org.springframework.boot.data.redis"))
            .run(context -> {
                assertNull(context.getStartupFailure());
                assertFalse(context.containsBean("ringwireClientResources"));
                assertFalse(context.containsBean("ringwireLettuceConnectionFactories"));
            });
    }
}
