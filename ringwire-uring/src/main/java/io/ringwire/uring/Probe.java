package io.ringwire.uring;

import java.util.List;

/**
 * {@code ./ringwire probe}: prints, item by item, what this kernel's io_uring offers, the kernel version that brings
 * each item, and whether Ringwire needs it; ends with a line on direct descriptors and one saying what is missing. Exit status 0 when everything
 * Ringwire needs is there, 1 otherwise.
 */
public final class Probe {
    private Probe() { }

    /**
     * @param args ignored
     */
    public static void main(String[] args) {
        IoUringProbe probe = IoUringProbe.get();
        System.out.println("io_uring on Linux " + probe.kernelRelease() + " (" + System.getProperty("os.arch") + ")");
        if (!probe.isAvailable()) {
            System.out.println("io_uring is NOT available: " + probe.unavailabilityCause());
            System.exit(1);
        }
        System.out.printf("%-10s %-34s %-7s %-10s %s%n", "area", "item", "since", "available", "Ringwire");
        for (IoUringProbe.Entry e : probe.entries()) {
            System.out.printf("%-10s %-34s %-7s %-10s %s%n", e.area(), e.name(), e.since(),
                e.available() ? "yes" : "NO", e.neededByRingwire() ? "needs" : "uses if present");
        }
        List<String> direct = probe.missingForDirectDescriptors();
        System.out.println(direct.isEmpty() ? "direct descriptors (connections without file descriptors): available"
            : "direct descriptors (connections without file descriptors): not available, missing "
                + String.join(", ", direct));
        List<String> missing = probe.missingForRingwire();
        if (missing.isEmpty()) {
            System.out.println("verdict: everything Ringwire needs is here.");
        } else {
            System.out.println("verdict: missing for Ringwire's best mode: " + String.join(", ", missing));
            System.exit(1);
        }
    }
}
