package io.ringwire.lab;

import java.util.Arrays;
import java.util.List;

/** The few statistics the lab reports: medians with min-max, and ratios to a baseline. */
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
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
}
