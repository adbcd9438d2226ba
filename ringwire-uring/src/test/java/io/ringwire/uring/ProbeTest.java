package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ProbeTest {
    @Test
    void shouldAgreeWithTheRingItCreates() throws Exception {
        IoUringProbe p = IoUringProbe.get();
        assumeTrue(p.isAvailable());
        assertTrue(p.isOpSupported(IoUringConstants.IORING_OP_NOP), "NOP exists since 5.1");
        assertTrue(p.hasFeature(IoUringConstants.IORING_FEAT_SINGLE_MMAP));
        try (IoUring ring = IoUring.builder().entries(4).build()) {
            assertTrue(p.hasFeature(ring.features()));
            assertEquals(p.isSetupFlagSupported(IoUringConstants.IORING_SETUP_DEFER_TASKRUN),
                (ring.setupFlags() & IoUringConstants.IORING_SETUP_DEFER_TASKRUN) != 0);
        }
    }

    @Test
    void shouldPrintOneLinePerItemWithVersionAndVerdict() {
        IoUringProbe p = IoUringProbe.get();
        assumeTrue(p.isAvailable() && p.missingForRingwire().isEmpty(), "prints the full table only on a capable kernel");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream old = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Probe.main(new String[0]);
        } finally {
            System.setOut(old);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("io_uring on Linux " + p.kernelRelease()), text);
        assertTrue(text.matches("(?s).*\\nsetup +DEFER_TASKRUN +6\\.1 +yes +needs\\n.*"), text);
        assertTrue(text.matches("(?s).*\\nbehaviour +multishot RECV +6\\.0 +yes +needs\\n.*"), text);
        assertTrue(text.matches("(?s).*\\nopcode +SEND_ZC +6\\.0 +yes .*"), text);
        assertTrue(text.matches("(?s).*\\ndirect +MSG_RING SEND_FD: slot to ring +6\\.0 .*"), text);
        assertTrue(text.contains("\ndirect descriptors (connections without file descriptors): "), text);
        assertEquals(p.entries().size() + 4, text.lines().count(),
            "title, header, one line per item, direct descriptors, verdict");
        assertTrue(text.strip().endsWith("verdict: everything Ringwire needs is here."), text);
    }

    @Test
    void shouldNameErrnos() {
        assertEquals("ENOBUFS", Errno.name(-Errno.ENOBUFS));
        assertEquals("ECONNRESET", Errno.name(Errno.ECONNRESET));
        assertEquals("errno 4000", Errno.name(4000));
        assertEquals("Connection reset by peer", Errno.description(Errno.ECONNRESET));
        assertEquals("recv failed: ENOBUFS (No buffer space available)",
            new NativeIoException("recv", -Errno.ENOBUFS).getMessage());
    }

    @Test
    void theKernelWithEverythingNeededIsTheNewestOfTheNeededEntries() {
        IoUringProbe p = IoUringProbe.get();
        assertEquals("6.1", p.kernelWithAllNeeded(), "DEFER_TASKRUN (6.1) is the newest needed");
        assertTrue(IoUringProbe.compareReleases("6.10", "6.9") > 0);
        assertEquals(0, IoUringProbe.compareReleases("6.1", "6.1"));
        assertTrue(IoUringProbe.compareReleases("5.19", "6.0") < 0);
    }
}
