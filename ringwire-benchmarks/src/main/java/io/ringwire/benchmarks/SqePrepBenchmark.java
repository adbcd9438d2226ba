package io.ringwire.benchmarks;

import io.ringwire.uring.IoUring;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SubmissionQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The Java-side cost of preparing one SQE (take a slot, zero 64 bytes, write opcode, fd, addr, len, flags and
 * user_data on the mmap-ed array), without the kernel: each batch of {@value #BATCH} is discarded unpublished, so no
 * system call is made. Score is per SQE.
 *
 * <p>Run: {@code ./ringwire bench SqePrepBenchmark -f 1 -wi 3 -i 5}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SqePrepBenchmark {
    private static final int BATCH = 64;

    private IoUring ring;
    private SubmissionQueue sq;

    @Setup(Level.Trial)
    public void setUp() throws NativeIoException {
        ring = IoUring.builder().entries(256).build();
        sq = ring.sq();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ring.close();
    }

    /** A SEND SQE, the most common one on an echo server's hot path. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void prepSend() {
        final SubmissionQueue q = sq;
        for (int i = 0; i < BATCH; i++) {
            q.prepSend(5, 0x1000L, 128, 0, i);
        }
        q.discardUnpublished();
    }

    /** A multishot RECV SQE with buffer select (more fields than SEND). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void prepRecvMultishot() {
        final SubmissionQueue q = sq;
        for (int i = 0; i < BATCH; i++) {
            q.prepRecvMultishot(5, (short) 1, 0, i);
        }
        q.discardUnpublished();
    }
}
