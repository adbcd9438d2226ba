package io.ringwire.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringwire.transport.RingwireCounters;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Ringwire's counters in Micrometer's registries when Micrometer is on the class path ({@link RingwireMeterBinder}):
 * with Spring Boot's Actuator, {@code /actuator/metrics/ringwire.loop.enters} and the rest.
 */
@AutoConfiguration(after = RingwireAutoConfiguration.class)
@ConditionalOnClass({MeterBinder.class, RingwireCounters.class})
@ConditionalOnBooleanProperty(name = "ringwire.enabled", matchIfMissing = true)
public final class RingwireMetricsAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    RingwireMeterBinder ringwireMeterBinder() {
        return new RingwireMeterBinder();
    }
}
