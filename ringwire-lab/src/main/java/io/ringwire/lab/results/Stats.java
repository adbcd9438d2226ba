package io.ringwire.lab.results;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The few statistics the lab reports: medians with min-max, ratios to a baseline with a bootstrap interval, and
 * whether two servers differ measurably.
 */
public final class Stats {
    private Stats() { }

    /**
     * @param values at least one value
     * @return the median (mean of the middle two for an even count)
     */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("median of nothing");
        }
        return median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * @param values at least one value
     * @return {min, max}
     */
    public static double[] range(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        return new double[] {Arrays.stream(v).min().orElseThrow(), Arrays.stream(v).max().orElseThrow()};
    }

    /**
     * @param value    a median
     * @param baseline the baseline's median
     * @return value / baseline, or NaN without a baseline
     */
    public static double ratio(double value, double baseline) {
        return baseline == 0 || Double.isNaN(baseline) ? Double.NaN : value / baseline;
    }

    /** Resamples behind {@link #ratioInterval}. */
    static final int RESAMPLES = 4000;

    /**
     * A 95 % bootstrap interval of median(a) / median(b): both samples resampled with replacement, independently,
     * {@link #RESAMPLES} times, from a fixed seed so that the same figures always give the same interval.
     *
     * @param a the numerator's runs
     * @param b the denominator's runs
     * @return {low, high}, or {NaN, NaN} when either side has no run
     */
    public static double[] ratioInterval(List<Double> a, List<Double> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return new double[] {Double.NaN, Double.NaN};
        }
        double[] x = a.stream().mapToDouble(Double::doubleValue).toArray();
        double[] y = b.stream().mapToDouble(Double::doubleValue).toArray();
        SplittableRandom random = new SplittableRandom(0x5eed);
        double[] ratios = new double[RESAMPLES];
        double[] bx = new double[x.length];
        double[] by = new double[y.length];
        for (int i = 0; i < RESAMPLES; i++) {
            for (int k = 0; k < bx.length; k++) {
                bx[k] = x[random.nextInt(x.length)];
            }
            for (int k = 0; k < by.length; k++) {
                by[k] = y[random.nextInt(y.length)];
            }
            ratios[i] = median(bx) / median(by);
        }
        Arrays.sort(ratios);
        return new double[] {ratios[(int) (0.025 * (RESAMPLES - 1))], ratios[(int) Math.ceil(0.975 * (RESAMPLES - 1))]};
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * One server's runs against another's: what a verdict, the report's overview and {@code lab compare} all say.
     *
     * @param ratio      median(a) / median(b)
     * @param low        the 95 % interval's start ({@link #ratioInterval})
     * @param high       its end
     * @param measurable -1, 0 or 1 as {@link #measurable}
     * @param enoughRuns whether both sides had at least two runs
     */
    public record Comparison(double ratio, double low, double high, int measurable, boolean enoughRuns) {
        /**
         * @param a the numerator's runs
         * @param b the denominator's runs
         * @return the comparison; NaN figures when a side has no run
         */
        public static Comparison of(List<Double> a, List<Double> b) {
            double ratio = a.isEmpty() || b.isEmpty() ? Double.NaN : median(a) / median(b);
            double[] i = ratioInterval(a, b);
            return new Comparison(ratio, i[0], i[1], Stats.measurable(a, b), a.size() >= 2 && b.size() >= 2);
        }

        /** @return what this comparison allows one to say of the numerator against the denominator */
        public Difference difference() {
            return !enoughRuns ? Difference.CANNOT_TELL : measurable == 0 ? Difference.NONE
                : measurable < 0 ? Difference.LOWER : Difference.HIGHER;
        }

        /** @return half the width of the 95 % interval: the spread shown as "ratio ± this" */
        public double halfInterval() {
            return (high - low) / 2;
        }
    }

    /** What a {@link Comparison} says: the numerator measurably lower or higher, neither, or too few runs to tell. */
    public enum Difference {
        /** Every run of the numerator below every run of the denominator. */
        LOWER("lower"),
        /** Every run of the numerator above every run of the denominator. */
        HIGHER("higher"),
        /** The runs' min-max ranges overlap. */
        NONE("no measurable difference"),
        /** A side had fewer than two runs. */
        CANNOT_TELL("cannot tell: 1 run");

        private final String words;

        Difference(String words) {
            this.words = words;
        }

        /** @return the words the lab's summary uses for it */
        public String words() {
            return words;
        }
    }

    /**
     * Two servers differ measurably when every run of one is below every run of the other: their min-max ranges do
     * not overlap. With one run on either side nothing can be told.
     *
     * @param a one server's runs
     * @param b the other's
     * @return -1 if a is measurably lower, 1 if measurably higher, 0 when the ranges overlap or a side has < 2 runs
     */
    public static int measurable(List<Double> a, List<Double> b) {
        if (a.size() < 2 || b.size() < 2) {
            return 0;
        }
        double[] ra = range(a);
        double[] rb = range(b);
        if (ra[1] < rb[0]) {
            return -1;
        }
        return ra[0] > rb[1] ? 1 : 0;
    }
}
