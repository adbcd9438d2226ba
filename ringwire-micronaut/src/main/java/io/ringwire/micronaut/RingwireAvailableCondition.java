package io.ringwire.micronaut;

import io.micronaut.context.condition.Condition;
import io.micronaut.context.condition.ConditionContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.transport.Ringwire;

/**
 * Whether Ringwire can run in this JVM ({@link Ringwire#unavailabilityCause()}); when it cannot, it logs why, once
 * per application context, and tells Micronaut why (its report of failed conditions).
 */
public final class RingwireAvailableCondition implements Condition {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireAvailableCondition.class);

    @Override
    public boolean matches(ConditionContext context) {
        Throwable cause = Ringwire.unavailabilityCause();
        if (cause == null) {
            return true;
        }
        logger.warn("Ringwire is unavailable, so Micronaut's event loops use the next transport listed: {}",
            cause.getMessage());
        context.fail(cause.getMessage());
        return false;
    }
}
