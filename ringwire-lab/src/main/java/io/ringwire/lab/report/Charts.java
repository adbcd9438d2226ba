package io.ringwire.lab.report;

import java.util.List;
import java.util.Locale;

/** Inline SVG charts for the HTML report: horizontal bars, plain or grouped; no script, no external file. */
public final class Charts {
    public static final String[] COLOURS = {"#1f6feb", "#e8590c", "#2f9e44", "#ae3ec9", "#868e96", "#f08c00"};
    private static final int LABEL_WIDTH = 170;
    private static final int BAR_AREA = 300;
    private static final int ROW = 18;

    private Charts() { }

    /**
     * @param title  the chart's caption
     * @param unit   the values' unit
     * @param labels one per bar
     * @param values one per bar (NaN: drawn as "n/a")
     * @param highlight a label drawn in the first colour (the others grey), or null for all in the first colour
     * @return an {@code <svg>} element
     */
    static String bars(String title, String unit, List<String> labels, double[] values, String highlight) {
        return grouped(title, unit, labels, List.of(unit), new double[][] {values}, highlight, false);
    }

    /**
     * @param title   the chart's caption
     * @param unit    the values' unit
     * @param labels  one per group
     * @param series  one name per bar within a group
     * @param values  [series][group]
     * @param highlight a label whose bars stay coloured while others fade, or null
     * @param log     logarithmic bar lengths (for latencies, where one stalled server would flatten the rest)
     * @return an {@code <svg>} element with a legend when there is more than one series
     */
    static String grouped(String title, String unit, List<String> labels, List<String> series, double[][] values,
                          String highlight, boolean log) {
        return grouped(title, unit, labels, series, values, null, null, highlight, log);
    }

    /**
     * As {@link #grouped(String, String, List, List, double[][], String, boolean)}, with a whisker from
     * {@code low} to {@code high} on each bar (its min-max over runs, or an interval).
     *
     * @param title   the chart's caption
     * @param unit    the values' unit
     * @param labels  one per group
     * @param series  one name per bar within a group
     * @param values  [series][group]
     * @param low     [series][group] whisker starts, or null for none
     * @param high    [series][group] whisker ends, or null for none
     * @param highlight a label whose bars stay coloured while others fade, or null
     * @param log     logarithmic bar lengths
     * @return an {@code <svg>} element
     */
    static String grouped(String title, String unit, List<String> labels, List<String> series, double[][] values,
                          double[][] low, double[][] high, String highlight, boolean log) {
        // wide enough for the longest label (about 7 px a character at the chart's font size)
        int labelWidth = LABEL_WIDTH;
        for (String l : labels) {
            labelWidth = Math.max(labelWidth, 7 * l.length() + 12);
        }
        double max = 0;
        double min = Double.MAX_VALUE;
        for (double[] s : values) {
            for (double v : s) {
                if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                    max = Math.max(max, v);
                    if (v > 0) {
                        min = Math.min(min, v);
                    }
                }
            }
        }
        if (high != null) {
            for (double[] h : high) {
                for (double v : h) {
                    if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
        }
        if (max == 0) {
            max = 1;
        }
        // log scale: the smallest value gets a tenth of the area, the largest all of it
        double floor = min == Double.MAX_VALUE ? 1 : min / Math.pow(max / min, 1.0 / 9);
        double span = Math.log(max / floor);
        int legend = series.size() > 1 ? 18 : 0;
        int groupHeight = ROW * series.size() + 6;
        int height = 24 + legend + groupHeight * labels.size() + 4;
        int legendEnd = labelWidth;
        for (String name : series) {
            legendEnd += 20 + 8 * name.length();
        }
        int width = Math.max(labelWidth + BAR_AREA + 90, legend > 0 ? legendEnd + 10 : 0);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">", width, height, width, height,
            Html.escape(title)));
        b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"15\" class=\"title\">%s (%s%s)</text>",
            Html.escape(title), Html.escape(unit), log ? ", log scale" : ""));
        if (legend > 0) {
            int x = labelWidth;
            for (int s = 0; s < series.size(); s++) {
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"26\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"35\">%s</text>", x, COLOURS[s % COLOURS.length], x + 14,
                    Html.escape(series.get(s))));
                x += 20 + 8 * series.get(s).length();
            }
        }
        int y = 24 + legend;
        for (int g = 0; g < labels.size(); g++) {
            boolean faded = highlight != null && !labels.get(g).equals(highlight);
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>",
                labelWidth - 6, y + ROW * series.size() / 2 + 8, Html.escape(labels.get(g))));
            for (int s = 0; s < series.size(); s++) {
                double v = values[s][g];
                int len = scale(v, max, floor, span, log);
                String colour = series.size() == 1 && faded ? "#adb5bd" : COLOURS[s % COLOURS.length];
                b.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    + "fill=\"%s\" data-value=\"%s\"><title>%s %s: %s</title></rect>", labelWidth, y + 2,
                    Math.max(len, 1), ROW - 4, colour, Html.num(v), Html.escape(labels.get(g)),
                    Html.escape(series.get(s)), Double.isNaN(v) ? "n/a" : Html.num(v)));
                int textX = labelWidth + len + 4;
                if (low != null && high != null && !Double.isNaN(low[s][g]) && !Double.isNaN(high[s][g])) {
                    int x0 = labelWidth + scale(low[s][g], max, floor, span, log);
                    int x1 = labelWidth + scale(high[s][g], max, floor, span, log);
                    int mid = y + ROW / 2;
                    b.append(String.format(Locale.ROOT, "<path class=\"whisker\" d=\"M%d %dH%dM%d %dV%dM%d %dV%d\" "
                        + "stroke=\"#212529\" fill=\"none\"><title>%s %s: %s-%s</title></path>", x0, mid, x1, x0,
                        mid - 4, mid + 4, x1, mid - 4, mid + 4, Html.escape(labels.get(g)),
                        Html.escape(series.get(s)), Html.num(low[s][g]), Html.num(high[s][g])));
                    textX = Math.max(textX, x1 + 4);
                }
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", textX,
                    y + ROW - 5, Double.isNaN(v) ? "n/a" : Html.escape(Html.pretty(v))));
                y += ROW;
            }
            y += 6;
        }
        return b.append("</svg>").toString();
    }

    /** @return the bar length of {@code v}, in pixels */
    private static int scale(double v, double max, double floor, double span, boolean log) {
        return Double.isNaN(v) || v <= 0 ? 0 : (int) Math.round(BAR_AREA * (log && span > 0
            ? Math.log(Math.max(Math.min(v, max), floor) / floor) / span : Math.min(v, max) / max));
    }
}
