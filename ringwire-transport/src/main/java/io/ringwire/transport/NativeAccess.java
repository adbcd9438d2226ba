package io.ringwire.transport;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.IoUring;

/**
 * Whether the JVM lets Ringwire's binding make the FFM API's restricted calls (downcalls, segments of unknown size).
 * The binding, module {@code io.ringwire.uring}, makes all of them; the transport makes none. Without native access
 * a JDK 22-25 prints its own warning at the first such call, and a JVM run with {@code --illegal-native-access=deny}
 * (a future JDK's default) refuses it: Ringwire says first, in one sentence, which flag to add.
 */
final class NativeAccess {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(NativeAccess.class);

    /** The binding's module name, on the module path. */
    static final String BINDING_MODULE = "io.ringwire.uring";

    /** What to add, for the class path and for the module path. */
    static final String ADVICE = "Ringwire calls the kernel through the FFM API and needs native access: add "
        + "--enable-native-access=ALL-UNNAMED to the java command on the class path (in an executable jar's "
        + "manifest: Enable-Native-Access: ALL-UNNAMED), or --enable-native-access=" + BINDING_MODULE
        + " on the module path";

    private static volatile boolean warned;

    private NativeAccess() { }

    /** @return whether the binding's module has native access (a class-path binding: the unnamed module's) */
    static boolean enabled() {
        return IoUring.class.getModule().isNativeAccessEnabled();
    }

    /** Logs {@link #ADVICE} once per JVM when the binding has no native access; touches no native code. */
    static void warnIfMissing() {
        if (!warned && !enabled()) {
            warned = true;
            logger.warn(ADVICE);
        }
    }

    /** @return whether {@code t}, or one of its causes, is the JVM refusing a restricted call */
    static boolean refused(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalCallerException) {
                return true;
            }
        }
        return false;
    }
}
