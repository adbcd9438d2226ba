package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector, recording every leak it reports so a test can fail on it (installed for the whole test JVM
 * with {@code -Dio.netty.customResourceLeakDetector}, at PARANOID level; see the module's pom).
 *
 * <p>A test JVM that has no last test to check for leaks (one of several forks sharing a surefire execution) is given
 * {@value #REPORT_AT_EXIT}: the directory where, as it exits, it collects what leaked and writes it to a file of its
 * own; {@code verify.NoResourceLeakTest} fails on any such file in {@value #REPORTS} (see the module's pom).
 *
 * @param <T> the tracked type
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    /** Every leak reported so far, as type and records. */
    public static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    /** System property: the directory this JVM writes its leaks to as it exits, if set. */
    public static final String REPORT_AT_EXIT = "ringwire.test.leakReportAtExit";
    /** System property: the directory {@code NoResourceLeakTest} reads other JVMs' leak reports from, if set. */
    public static final String REPORTS = "ringwire.test.leakReports";

    static {
        String dir = System.getProperty(REPORT_AT_EXIT);
        if (dir != null && !dir.isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> reportAtExit(Path.of(dir)), "leak-report"));
        }
    }

    /**
     * Forces the collector and the detector's reporting: leaks are reported when the detector tracks a new object
     * after the collector found the leaked one unreachable.
     *
     * @throws InterruptedException if interrupted while waiting for the collector
     */
    public static void collect() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(16);
            a.release();
            b.release();
        }
    }

    /**
     * @param dir the directory of the leak reports
     * @return every leak other JVMs wrote to {@code dir} as they exited, none if it does not exist
     */
    public static List<String> reportedBy(Path dir) {
        List<String> leaks = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return leaks;
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                leaks.add(f.getFileName() + ":\n" + Files.readString(f));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return leaks;
    }

    private static void reportAtExit(Path dir) {
        try {
            collect();
            if (!LEAKS.isEmpty()) {
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("leaks-" + ProcessHandle.current().pid() + ".txt"),
                    LEAKS.size() + " leak(s): " + String.join("\n", LEAKS) + "\n");
            }
        } catch (IOException | InterruptedException e) {
            System.err.println("leak report: " + e);
        }
    }

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
