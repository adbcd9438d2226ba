package io.ringwire.lab.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags every server of a run gets, the same for every competitor, so that no server is measured at a
 * disadvantage the others do not share.
 *
 * <p>Netty at its best: on JDK 24 and newer the JDK warns about {@code sun.misc.Unsafe} and Netty 4.2 stops using it
 * unless the JVM is told {@code --sun-misc-unsafe-memory-access=allow}; on the JDKs most of Netty's users run, it uses
 * it. So by default every server gets that flag; {@code nettyUnsafe = false} turns Netty's Unsafe off instead
 * ({@code -Dio.netty.noUnsafe=true}), for comparing with JDK 25's default.
 *
 * @param nettyUnsafe whether Netty may use {@code sun.misc.Unsafe}
 */
public record ServerJvm(boolean nettyUnsafe) {
    /** Netty with Unsafe, its best case. */
    public static final ServerJvm DEFAULT = new ServerJvm(true);

    /** @return the flags, before the class path */
    public List<String> flags() {
        List<String> f = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g",
            "-XX:+UseG1GC",
            // NMT summary: the server reports what it committed outside the Java heap (the same small cost for all)
            "-XX:NativeMemoryTracking=summary"));
        if (nettyUnsafe) {
            if (Runtime.version().feature() >= 23) { // the flag exists from JDK 23; before it Unsafe is simply there
                f.add("--sun-misc-unsafe-memory-access=allow");
            }
        } else {
            f.add("-Dio.netty.noUnsafe=true");
        }
        return f;
    }

    /**
     * @return extra flags from {@code RINGWIRE_LAB_SERVER_OPTS} (profiling, {@code --add-opens}, ...), given to
     *         every server after {@link #flags()}; empty without it
     */
    public static List<String> extraFlags() {
        String extra = System.getenv("RINGWIRE_LAB_SERVER_OPTS");
        return extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
    }

    /** @return the flags as one line, for reports, extra ones included and named */
    public String describe() {
        List<String> extra = extraFlags();
        return String.join(" ", flags()) + (extra.isEmpty() ? ""
            : " " + String.join(" ", extra) + " (from RINGWIRE_LAB_SERVER_OPTS)")
            + (nettyUnsafe ? " (Netty uses sun.misc.Unsafe)" : " (Netty without sun.misc.Unsafe)");
    }
}
