package io.ringwire.micronaut;

import io.micronaut.context.condition.Condition;
import io.micronaut.context.condition.ConditionContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;

/**
 * Whether Ringwire can run in this JVM: whether {@link Ringwire#bestTransport()} chose it. When it did not, this logs
 * why, once per application context, and tells Micronaut why (its report of failed conditions); Micronaut then takes
 * the next transport of its {@code transport} list, which {@code ringwire,epoll,nio} makes the same choice as
 * {@code Ringwire.bestTransport()}.
 */
public final class RingwireAvailableCondition implements Condition {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireAvailableCondition.class);

    @Override
    public boolean matches(ConditionContext context) {
        BestTransport best = Ringwire.bestTransport();
        if (best.isRingwire()) {
            return true;
        }
        Throwable cause = best.ringwireUnavailabilityCause();
        logger.warn("Ringwire is unavailable, so Micronaut's event loops use the next transport listed: {}",
            cause.getMessage());
        context.fail(cause.getMessage());
        return false;
    }
}
