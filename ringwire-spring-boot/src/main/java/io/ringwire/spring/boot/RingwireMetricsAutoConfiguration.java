package io.ringwire.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringwire.micrometer.RingwireMeterBinder;
import io.ringwire.transport.RingwireCounters;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Ringwire's counters in Micrometer's registries when Micrometer is on the class path, by {@code ringwire-micrometer}'s
 * {@link RingwireMeterBinder}: with Spring Boot's Actuator, {@code /actuator/metrics/ringwire.loop.enters} (the sum
 * over the loops; {@code ?tag=loop:<thread name>} for one) and the rest. The context's end closes the binder, which
 * takes its meters out of the registries.
 */
@AutoConfiguration(after = RingwireAutoConfiguration.class)
@ConditionalOnClass({MeterBinder.class, RingwireMeterBinder.class, RingwireCounters.class})
@ConditionalOnBooleanProperty(name = "ringwire.enabled", matchIfMissing = true)
public final class RingwireMetricsAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    RingwireMeterBinder ringwireMeterBinder() {
        return new RingwireMeterBinder();
    }
}
