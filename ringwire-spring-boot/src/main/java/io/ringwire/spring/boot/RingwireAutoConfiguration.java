package io.ringwire.spring.boot;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.reactor.RingwireLoopResources;
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireIoHandlerConfig;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.http.client.HttpClient;

import java.time.Duration;

/**
 * Spring Boot's reactive web server, its WebClient, and every Reactor Netty client built through Boot's
 * {@link ReactorResourceFactory}, on Ringwire's event loops and channels.
 *
 * <p>Boot's Reactor Netty server and its {@code ClientHttpConnector} both take their event loops from the
 * application's {@code ReactorResourceFactory} bean, which Boot makes only when the application has none. This
 * auto-configuration runs before Boot's and makes that bean with {@link RingwireLoopResources}: loops of its own
 * ({@code ringwire.loops}, each with a ring set by the other {@code ringwire.*} properties), shut down with the
 * application context, and Spring's own connection pool for such a factory. Reactor Netty clients made outside it
 * ({@code HttpClient.create()}, {@code WebClient.create()}) keep Netty's default transport.
 *
 * <p>{@code ringwire.enabled=false} turns it off. Where Ringwire cannot run (no io_uring, a kernel older than 6.1, a
 * seccomp profile that blocks it, {@code -Dringwire.disable=true}), as {@code Ringwire.bestTransport()} decides, the
 * bean is the one Boot would have made, so the application starts on Netty's default transport (Reactor Netty's own
 * choice: epoll when {@code netty-transport-native-epoll} is on the class path, else NIO, the order of
 * {@code Ringwire.bestTransport()}), and one line in the log says why. An application that declares a
 * {@code ReactorResourceFactory} of its own keeps it.
 */
@AutoConfiguration(beforeName = {
    "org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration",
    "org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration"})
@ConditionalOnClass({ReactorResourceFactory.class, HttpClient.class, RingwireLoopResources.class})
@ConditionalOnBooleanProperty(name = "ringwire.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RingwireProperties.class)
public final class RingwireAutoConfiguration {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireAutoConfiguration.class);

    /** Reactor Netty's thread names are "reactor-http-epoll-N"; Ringwire's loops are "reactor-http-ringwire-N-M". */
    static final String THREAD_PREFIX = "reactor-http";

    @Bean
    @ConditionalOnMissingBean
    ReactorResourceFactory reactorResourceFactory(RingwireProperties properties, Environment environment) {
        ReactorResourceFactory factory = new ReactorResourceFactory();
        // Boot's own factory honours this property (ReactorNettyProperties); read here so that a client-only
        // application, without spring-boot-reactor-netty, needs no class of it
        Binder.get(environment).bind("spring.reactor.netty.shutdown-quiet-period", Duration.class)
            .ifBound(factory::setShutdownQuietPeriod);
        BestTransport best = Ringwire.bestTransport();
        if (!best.isRingwire()) {
            // the factory Boot would have made: Reactor Netty's global resources on Netty's default transport
            logger.warn("Ringwire is unavailable, so Reactor Netty runs on Netty's default transport: {}",
                best.ringwireUnavailabilityCause().getMessage());
            return factory;
        }
        RingwireIoHandlerConfig config = properties.ioHandlerConfig(); // checked now, not when the server starts
        int loops = properties.loopCount();
        // not Reactor Netty's global resources (HttpResources), which every HttpClient.create() in the JVM shares:
        // loops of the factory's own, made on start and disposed on stop, so that a context stopped and started
        // again (or a second one in the JVM) has loops of its own
        factory.setUseGlobalResources(false);
        factory.setLoopResourcesSupplier(() -> RingwireLoopResources.create(THREAD_PREFIX, loops, 0, true, config));
        logger.info("Reactor Netty runs on Ringwire (io_uring): {} event loops", loops);
        return factory;
    }
}
