package io.ringwire.spring.boot;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.channel.Channel;
import io.ringwire.lettuce.RedisServer;
import io.ringwire.lettuce.RingwireLettuce;
import io.ringwire.spring.boot.redis.GreetingApplication;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Spring Data Redis application ({@link GreetingApplication}: Boot's {@link StringRedisTemplate} and nothing of
 * Ringwire's in its code) against a real redis-server on a loopback port: with {@code ringwire-spring-boot} and
 * {@code ringwire-lettuce} on its class path its Redis connections are Ringwire's channels on Ringwire's loops, and
 * with {@code ringwire.enabled=false} Lettuce's own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringDataRedisOnRingwireTest {
    @TempDir
    static Path dir;
    private static RedisServer server;

    @BeforeAll
    static void startServer() throws Exception {
        assumeTrue(Ringwire.isAvailable(), () -> "Ringwire cannot run here: " + Ringwire.unavailabilityCause());
        RedisServer.assumeInstalled();
        server = RedisServer.start(dir);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static ConfigurableApplicationContext run(String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + server.port, "spring.data.redis.timeout=30s"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(GreetingApplication.class).web(WebApplicationType.NONE)
            .properties(all.toArray(String[]::new)).run();
    }

    /** The build runs this class on the Lettuce Boot manages and again on ringwire-lettuce's (its lettuce-7 run). */
    @Test
    void runsOnTheLettuceTheBuildChose() {
        String version = RedisClient.class.getPackage().getImplementationVersion();
        String expected = System.getProperty("ringwire.test.lettuceVersion");
        System.out.println("Lettuce " + version);
        if (expected != null) {
            assertTrue(version.startsWith(expected), version);
        }
    }

    @Test
    void stringRedisTemplateRunsOnRingwiresLoopsAndChannels() {
        try (ConfigurableApplicationContext context = run()) {
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            assertInstanceOf(RingwireLettuceConnectionFactory.class, factory);
            assertEquals("io.ringwire.lettuce.RingwireRedisClient", factory.getRequiredNativeClient().getClass().getName());

            GreetingApplication.Greetings greetings = context.getBean(GreetingApplication.Greetings.class);
            assertEquals("hello", greetings.roundTrip("greeting", "hello"));
            List<Channel> channels = context.getBean(GreetingApplication.Channels.class).opened;
            assertFalse(channels.isEmpty(), "Lettuce opened a channel");
            RingwireCounters counters = RingwireCounters.of(channels.get(0).eventLoop());
            assertNotNull(counters, "the loop of " + channels.get(0) + " is Ringwire's");
            long written = counters.writeBytes();
            long received = counters.recvBytes();

            String large = "x".repeat(256 * 1024);
            assertEquals(large, greetings.roundTrip("large", large));
            for (Channel channel : channels) {
                assertInstanceOf(RingwireSocketChannel.class, channel);
                assertNotNull(RingwireCounters.of(channel.eventLoop()), "the loop of " + channel + " is Ringwire's");
            }
            assertTrue(counters.writeBytes() - written > 256 * 1024, "Ringwire's loop wrote the SET: " + counters);
            assertTrue(counters.recvBytes() - received > 256 * 1024, "Ringwire's loop received the GET: " + counters);
        }
    }

    /**
     * An application that makes a Lettuce client of its own on Boot's {@code ClientResources} bean, with Lettuce's
     * {@code RedisClient.create}: Lettuce's client opens its own transport's channel, which must not land on Ringwire's
     * loops; Boot's own connections stay on Ringwire.
     */
    @Test
    void aClientTheApplicationMakesOnBootsClientResourcesConnects() {
        try (ConfigurableApplicationContext context = run()) {
            ClientResources resources = context.getBean(ClientResources.class);
            assertTrue(RingwireLettuce.isRingwire(resources), "Boot's client resources are on Ringwire's loops");
            List<Channel> channels = context.getBean(GreetingApplication.Channels.class).opened;
            RedisClient client = RedisClient.create(resources, RedisURI.builder().redis("127.0.0.1", server.port)
                .withTimeout(Duration.ofSeconds(30)).build());
            Channel own;
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().set("made-by-the-application", "hello");
                assertEquals("hello", connection.sync().get("made-by-the-application"));
                own = channels.get(channels.size() - 1);
                // Lettuce's own choice: epoll here (Reactor Netty brings Netty's epoll transport), else NIO
                assertTrue(own.getClass().getName().startsWith("io.netty.channel."),
                    () -> own + ": " + own.getClass().getName());
                assertNull(RingwireCounters.of(own.eventLoop()), "the loop of " + own + " is Lettuce's own");
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(10)); // its loops only: the resources are Boot's
            }

            GreetingApplication.Greetings greetings = context.getBean(GreetingApplication.Greetings.class);
            assertEquals("hello", greetings.roundTrip("after-the-application's-client", "hello"));
            List<Channel> boots = channels.stream().filter(c -> c != own).toList();
            assertFalse(boots.isEmpty(), "Boot's factory opened a channel");
            for (Channel channel : boots) {
                assertInstanceOf(RingwireSocketChannel.class, channel);
                assertNotNull(RingwireCounters.of(channel.eventLoop()), "the loop of " + channel + " is Ringwire's");
            }
        }
    }

    @Test
    void enabledFalseLeavesLettuceOnItsOwnTransport() {
        try (ConfigurableApplicationContext context = run("ringwire.enabled=false")) {
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            assertSame(LettuceConnectionFactory.class, factory.getClass());
            assertEquals("hello", context.getBean(GreetingApplication.Greetings.class).roundTrip("off", "hello"));
            List<Channel> channels = context.getBean(GreetingApplication.Channels.class).opened;
            assertFalse(channels.isEmpty(), "Lettuce opened a channel");
            for (Channel channel : channels) {
                // Lettuce's own choice: epoll here (Reactor Netty brings Netty's epoll transport), else NIO
                assertTrue(channel.getClass().getName().startsWith("io.netty.channel."),
                    () -> channel + ": " + channel.getClass().getName());
                assertNull(RingwireCounters.of(channel.eventLoop()), "the loop of " + channel + " is Lettuce's own");
            }
        }
    }
}
