package io.ringwire.benchmarks;

import io.ringwire.uring.CompletionHandler;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SubmissionQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * What SQEs cost through the kernel and back: {@code batch} NOP SQEs submitted with one {@code io_uring_enter} and
 * reaped in one CQ drain. The score is per invocation, i.e. per batch; divide by {@code batch} for the cost per op.
 * At batch 1 that is the cost model's (s + t); at larger batches the enter's fixed cost s is shared by n ops, which
 * is the argument of the cost model in "io_uring vs epoll" (Wang Xiaoguang, OpenAnolis, 2021,
 * https://juejin.cn/post/7045098217121251335) in numbers. {@link SqePrepBenchmark} measures the Java side alone.
 *
 * <p>Run: {@code ./ringwire bench SubmissionBenchmark -f 1 -wi 3 -i 5}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SubmissionBenchmark {
    @Param({"1", "8", "32", "128"})
    public int batch;

    private IoUring ring;
    private SubmissionQueue sq;
    private Blackhole blackhole;
    private CompletionHandler handler;

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws NativeIoException {
        ring = IoUring.builder().entries(256).cqEntries(1024).build();
        sq = ring.sq();
        blackhole = bh;
        handler = (userData, res, flags) -> blackhole.consume(res);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ring.close();
    }

    /**
     * Cost of {@code batch} NOP SQEs through the kernel and back, divided per op by JMH's result unit below.
     *
     * @return CQEs reaped
     */
    @Benchmark
    public int submitAndReap() {
        final SubmissionQueue q = sq;
        for (int i = 0; i < batch; i++) {
            q.prepNop(i);
        }
        ring.submitAndWait(batch, -1);
        return ring.cq().drain(handler, batch);
    }
}
