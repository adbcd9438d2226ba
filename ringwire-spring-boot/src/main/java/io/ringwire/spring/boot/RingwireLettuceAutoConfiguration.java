package io.ringwire.spring.boot;

import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.lettuce.RingwireLettuce;
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Spring Data Redis's Lettuce connections on Ringwire's event loops and channels, when Spring Data Redis, Lettuce and
 * {@code ringwire-lettuce} are on the class path; off with the rest of Ringwire ({@code ringwire.enabled=false}).
 *
 * <p>Two of Boot's extension points, since Lettuce takes its event loops from its {@link ClientResources} but its
 * channel class from its own static {@code Transports}, which only {@link RingwireLettuce}'s clients replace:
 * <ul>
 *   <li>a {@link ClientResourcesBuilderCustomizer}, which gives the {@code ClientResources} bean Boot makes Ringwire's
 *       loops ({@link RingwireLettuce#customize(ClientResources.Builder, int)}, Lettuce's number of I/O threads, each
 *       ring as Ringwire's defaults and {@code -Dringwire.*} system properties set it);</li>
 *   <li>a {@link BeanPostProcessor} that hands each {@link LettuceConnectionFactory} bean on those resources (Boot's own
 *       or the application's) over to a {@link RingwireLettuceConnectionFactory} before it starts: the same
 *       configuration and settings, and Lettuce clients that are {@code RingwireLettuce}'s.</li>
 * </ul>
 * Where Ringwire cannot run, as {@code Ringwire.bestTransport()} decides, the resources are Boot's as they were, Lettuce
 * runs on its own transport (epoll when {@code netty-transport-native-epoll} is on the class path, else NIO), and one
 * line in the log says why. An application that declares its own {@code ClientResources} bean keeps it as it is. A
 * client the application makes itself on Boot's resources with {@code RedisClient.create} gets Lettuce's own event
 * loops from them and runs on Lettuce's transport; made with {@link RingwireLettuce#redisClient} it runs on Ringwire.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({LettuceConnectionFactory.class, RedisClient.class, ClientResourcesBuilderCustomizer.class,
    RingwireLettuce.class})
@ConditionalOnBooleanProperty(name = "ringwire.enabled", matchIfMissing = true)
public final class RingwireLettuceAutoConfiguration {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireLettuceAutoConfiguration.class);

    @Bean
    ClientResourcesBuilderCustomizer ringwireClientResources() {
        return builder -> {
            BestTransport best = Ringwire.bestTransport();
            if (!best.isRingwire()) {
                logger.warn("Lettuce runs on its default transport, Ringwire being unavailable: {}",
                    best.ringwireUnavailabilityCause().getMessage());
                return;
            }
            RingwireLettuce.customize(builder, DefaultClientResources.DEFAULT_IO_THREADS);
            logger.info("Lettuce runs on Ringwire (io_uring): {} event loops", DefaultClientResources.DEFAULT_IO_THREADS);
        };
    }

    /** Static: a post-processor is made before the configuration's other beans, and needs none of them. */
    @Bean
    static BeanPostProcessor ringwireLettuceConnectionFactories() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                return bean instanceof LettuceConnectionFactory factory
                    ? RingwireLettuceConnectionFactory.takeOver(factory, beanName) : bean;
            }
        };
    }
}
