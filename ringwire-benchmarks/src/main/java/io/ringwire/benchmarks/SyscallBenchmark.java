package io.ringwire.benchmarks;

import io.ringwire.uring.Libc;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The floor under every io_uring_enter: the cheapest system call ({@code getppid}) through the same FFM
 * {@code syscall(2)} downcall the binding uses, errno capture included. This is the cost model's s (user/kernel
 * switch) plus the JVM's downcall overhead; {@link SubmissionBenchmark} at batch 1 minus this is roughly t.
 *
 * <p>Run: {@code ./ringwire bench SyscallBenchmark -f 1 -wi 3 -i 5}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SyscallBenchmark {
    private static final long SYS_GETPPID = 110; // x86_64

    private final MemorySegment capture = Libc.newErrnoCapture();

    /** @return the parent pid */
    @Benchmark
    public long getppid() {
        return Libc.syscall(capture, SYS_GETPPID, 0, 0, 0, 0, 0, 0);
    }
}
