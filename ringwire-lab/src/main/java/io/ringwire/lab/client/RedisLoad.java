package io.ringwire.lab.client;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.ringwire.lab.server.ServerStats;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The redis-client workload's load, inside the measured client JVM, on one Lettuce connection (its async API, a
 * byte-array codec): from its start until the lab says FINISH, so that the warm-up and the window are the same work.
 *
 * <ul>
 *   <li>{@code set} and {@code get}: a closed loop keeping {@code depth} commands in flight, each answer's callback
 *       sending the next; each of the {@code depth} slots owns its own keys, so a key's SETs follow each other;</li>
 *   <li>{@code pipeline}: batches of {@code depth} commands (a SET and a GET of the same key, {@code depth / 2}
 *       keys) written with auto-flush off and sent by one {@code flushCommands()}; the next batch once all are
 *       answered;</li>
 *   <li>{@code rate}: GETs at a fixed rate from a thread of their own (open loop), latency from each command's
 *       scheduled time, so a stalled client's wait is counted (no coordinated omission).</li>
 * </ul>
 *
 * Every reply is checked: a SET answers OK, a GET the value its key was last SET to ({@link #KEYS} keys, each value
 * naming its key and generation, filled to {@code size} bytes). At FINISH the keys the load SET are all read back and
 * checked too. A wrong reply is a mismatch, a failed command an error.
 */
final class RedisLoad implements ServerStats.Extension {
    /** Keys the load uses, each SET before the load starts. */
    static final int KEYS = 1024;
    /** Values per key: a SET writes the key's next one, so a stale value is told apart from the new. */
    private static final int GENERATIONS = 4;
    /** The longest latency recorded, ns: one minute, the command timeout's order. */
    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * What the load does.
     *
     * @param mode  {@code set}, {@code get}, {@code pipeline} or {@code rate}
     * @param size  value bytes (at least 16: the value names its key and generation)
     * @param depth commands in flight ({@code set}, {@code get}) or per batch ({@code pipeline}, even)
     * @param rate  commands per second ({@code rate}); 0 otherwise
     */
    record Shape(String mode, int size, int depth, double rate) {
        Shape {
            if (!List.of("set", "get", "pipeline", "rate").contains(mode) || size < 16 || depth < 1
                || depth > KEYS || (mode.equals("pipeline") && depth % 2 != 0) || (mode.equals("rate") != rate > 0)) {
                throw new IllegalArgumentException("a load of set, get, pipeline (an even batch) or rate (a rate > 0), "
                    + "values of 16 B or more, 1 to " + KEYS + " in flight: " + mode + " " + size + " " + depth
                    + " " + rate);
            }
        }

        /** @return the words the client JVM's command line carries it in */
        List<String> args() {
            return List.of(mode, Integer.toString(size), Integer.toString(depth), Double.toString(rate));
        }

        static Shape parse(String[] args, int from) {
            return new Shape(args[from], Integer.parseInt(args[from + 1]), Integer.parseInt(args[from + 2]),
                Double.parseDouble(args[from + 3]));
        }
    }

    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisAsyncCommands<byte[], byte[]> async;
    private final Shape shape;
    private final byte[][] keys = new byte[KEYS][];
    private final byte[][][] values = new byte[KEYS][GENERATIONS][];
    /** Each key's generation last SET: written only by the key's one writer (a slot, the batch) in order. */
    private final int[] generation = new int[KEYS];
    /** Each slot's next key, among its own ({@code set}, {@code get}). */
    private final int[] cursor;
    private final LongAdder answered = new LongAdder();
    private final LongAdder mismatches = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Recorder latency = new Recorder(MAX_NANOS, 3);
    private final Recorder sendLag = new Recorder(MAX_NANOS, 3);
    private volatile boolean stopping;
    private Thread pacer;
    private int batchCursor;
    private long windowStart = System.nanoTime();
    private long answeredAtReset;

    RedisLoad(StatefulRedisConnection<byte[], byte[]> connection, Shape shape) {
        this.connection = connection;
        this.async = connection.async();
        this.shape = shape;
        this.cursor = new int[shape.depth()];
        for (int k = 0; k < KEYS; k++) {
            keys[k] = ("ringwire-lab:" + k).getBytes(StandardCharsets.US_ASCII);
            for (int g = 0; g < GENERATIONS; g++) {
                values[k][g] = value(k, g, shape.size());
            }
        }
        for (int s = 0; s < cursor.length; s++) {
            cursor[s] = s;
        }
    }

    /** @return {@code size} bytes that name key {@code k} and generation {@code g}, then a filler of letters */
    static byte[] value(int k, int g, int size) {
        byte[] v = new byte[size];
        byte[] head = (k + ":" + g + ":").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < size; i++) {
            v[i] = i < head.length ? head[i] : (byte) ('a' + (k + g + i) % 26);
        }
        return v;
    }

    /**
     * SETs every key to its first value and checks the answers, then starts the load.
     *
     * @throws Exception if a SET fails or answers other than OK
     */
    void start() throws Exception {
        List<RedisFuture<String>> sets = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            sets.add(async.set(keys[k], values[k][0]));
        }
        for (int k = 0; k < KEYS; k++) {
            String reply = sets.get(k).get(30, TimeUnit.SECONDS);
            if (!"OK".equals(reply)) {
                throw new IllegalStateException("SET " + new String(keys[k], StandardCharsets.US_ASCII)
                    + " answered " + reply);
            }
        }
        switch (shape.mode()) {
            case "set", "get" -> {
                for (int s = 0; s < shape.depth(); s++) {
                    next(s);
                }
            }
            case "pipeline" -> {
                connection.setAutoFlushCommands(false);
                batch();
            }
            default -> {
                pacer = Thread.ofPlatform().name("lab-redis-pacer").daemon(true).start(this::paced);
            }
        }
    }

    /** Sends slot {@code s}'s next command: a SET of its next key's next value, or a GET of it. */
    private void next(int s) {
        int k = cursor[s];
        cursor[s] = k + shape.depth() < KEYS ? k + shape.depth() : s;
        inFlight.incrementAndGet();
        long sent = System.nanoTime();
        if (shape.mode().equals("set")) {
            int g = (generation[k] + 1) % GENERATIONS;
            async.set(keys[k], values[k][g]).whenComplete((reply, e) -> {
                if (e == null) {
                    generation[k] = g;
                }
                answered(sent, e, e != null || "OK".equals(reply));
                again(s);
            });
        } else {
            async.get(keys[k]).whenComplete((reply, e) -> {
                answered(sent, e, e != null || Arrays.equals(values[k][generation[k]], reply));
                again(s);
            });
        }
    }

    private void again(int s) {
        if (!stopping) {
            next(s);
        }
    }

    /** Writes a batch of SET-then-GET pairs, flushed at once; the last answer of the batch sends the next. */
    private void batch() {
        int pairs = shape.depth() / 2;
        AtomicInteger left = new AtomicInteger(shape.depth());
        long sent = System.nanoTime();
        for (int i = 0; i < pairs; i++) {
            int k = batchCursor;
            batchCursor = (batchCursor + 1) % KEYS;
            int g = (generation[k] + 1) % GENERATIONS;
            generation[k] = g; // the batch's GET of k, after its SET on the same connection, must see it
            inFlight.addAndGet(2);
            async.set(keys[k], values[k][g]).whenComplete((reply, e) -> {
                answered(sent, e, e != null || "OK".equals(reply));
                if (left.decrementAndGet() == 0 && !stopping) {
                    batch();
                }
            });
            async.get(keys[k]).whenComplete((reply, e) -> {
                answered(sent, e, e != null || Arrays.equals(values[k][g], reply));
                if (left.decrementAndGet() == 0 && !stopping) {
                    batch();
                }
            });
        }
        connection.flushCommands();
    }

    /** The fixed-rate load: GETs at their scheduled times, from this thread. */
    private void paced() {
        long period = (long) (1e9 / shape.rate());
        long start = System.nanoTime();
        int k = 0;
        for (long i = 0; !stopping; i++) {
            long due = start + i * period;
            long now;
            while ((now = System.nanoTime()) < due) {
                LockSupport.parkNanos(due - now);
            }
            sendLag.recordValue(Math.min(now - due, MAX_NANOS));
            int key = k;
            k = (k + 1) % KEYS;
            inFlight.incrementAndGet();
            async.get(keys[key]).whenComplete((reply, e) ->
                answered(due, e, e != null || Arrays.equals(values[key][generation[key]], reply)));
        }
    }

    /**
     * One command answered.
     *
     * @param since when it was sent (or due, at a fixed rate)
     * @param error its failure, or null
     * @param right whether its reply was the one expected (true for a failure, which counts as an error only)
     */
    private void answered(long since, Throwable error, boolean right) {
        latency.recordValue(Math.min(System.nanoTime() - since, MAX_NANOS));
        if (error != null) {
            errors.increment();
        } else if (!right) {
            mismatches.increment();
        }
        answered.increment();
        inFlight.decrementAndGet();
    }

    @Override
    public void reset() {
        latency.getIntervalHistogram(); // what the warm-up recorded is dropped
        sendLag.getIntervalHistogram();
        answeredAtReset = answered.sum();
        windowStart = System.nanoTime();
    }

    @Override
    public String answer(String line) {
        return switch (line) {
            case "LOAD" -> window();
            case "FINISH" -> finish();
            default -> null;
        };
    }

    /** @return {@code LOAD ...}: the window's answers, seconds, latency percentiles and the failures so far */
    private String window() {
        double seconds = (System.nanoTime() - windowStart) / 1e9;
        Histogram h = latency.getIntervalHistogram();
        Histogram lag = sendLag.getIntervalHistogram();
        boolean paced = shape.mode().equals("rate");
        return String.format(Locale.ROOT, "LOAD commands=%d seconds=%.6f p50Us=%.3f p90Us=%.3f p99Us=%.3f "
                + "p999Us=%.3f maxUs=%.3f sendLagP99Us=%.3f offeredRate=%.3f mismatches=%d errors=%d",
            answered.sum() - answeredAtReset, seconds, us(h, 50), us(h, 90), us(h, 99), us(h, 99.9),
            h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1e3,
            paced ? us(lag, 99) : Double.NaN, paced ? shape.rate() : Double.NaN, mismatches.sum(), errors.sum());
    }

    private static double us(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e3;
    }

    /**
     * Stops the load, waits (at most 30 s) for the commands in flight, reads back every key and checks each holds
     * the value last SET to it.
     *
     * @return {@code FINISHED mismatches=... errors=... unanswered=...}: over the whole run, read-back included
     */
    private String finish() {
        stopping = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            if (pacer != null) {
                pacer.join(TimeUnit.SECONDS.toMillis(30));
            }
            // no flushCommands() from here: every batch flushes itself, and a flush from this thread, not the
            // connection's event loop, reaches the channel as a task behind what the loop writes meanwhile, so a
            // batch's SET flushed here could go out after its GET, flushed by the loop (a stale read, a mismatch)
            while (inFlight.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            int unanswered = inFlight.get();
            if (unanswered == 0) {
                connection.setAutoFlushCommands(true);
                List<RedisFuture<byte[]>> reads = new ArrayList<>();
                for (int k = 0; k < KEYS; k++) {
                    reads.add(async.get(keys[k]));
                }
                for (int k = 0; k < KEYS; k++) {
                    try {
                        if (!Arrays.equals(values[k][generation[k]], reads.get(k).get(30, TimeUnit.SECONDS))) {
                            mismatches.increment();
                        }
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        errors.increment();
                    }
                }
            }
            return String.format(Locale.ROOT, "FINISHED mismatches=%d errors=%d unanswered=%d", mismatches.sum(),
                errors.sum() + unanswered, unanswered);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "ERROR interrupted while finishing";
        }
    }
}
