package io.ringwire.transport;

import io.netty.util.ResourceLeakDetector;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector, recording every leak it reports so a test can fail on it (installed for the whole test JVM
 * with {@code -Dio.netty.customResourceLeakDetector}, at PARANOID level; see the module's pom, and
 * ringwire-netty-testsuite's, which takes it from this module's test jar).
 *
 * @param <T> the tracked type
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    /** Every leak reported so far, as type and records. */
    public static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    /**
     * The constructor Netty's factory calls reflectively.
     *
     * @param resourceType     tracked type
     * @param samplingInterval sampling interval
     */
    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /**
     * The constructor older Netty factories call reflectively.
     *
     * @param resourceType     tracked type
     * @param samplingInterval sampling interval
     * @param maxActive        ignored by Netty
     */
    @SuppressWarnings("deprecation")
    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + ": " + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " (untraced)");
        super.reportUntracedLeak(resourceType);
    }
}
