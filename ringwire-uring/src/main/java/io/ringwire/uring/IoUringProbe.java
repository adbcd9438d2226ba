package io.ringwire.uring;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import static io.ringwire.uring.IoUringConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * What this kernel's io_uring offers, asked once: set-up flags (by trying them), feature bits (from
 * {@code io_uring_params.features}), opcodes ({@code IORING_REGISTER_PROBE}), and the behaviours Ringwire depends on
 * that no bit announces (multishot accept, multishot recv, provided buffer rings, registered ring fd), by submitting
 * them on a scratch ring against loopback sockets.
 *
 * <p>{@link #get()} probes once per JVM. When io_uring is unusable (old kernel, {@code kernel.io_uring_disabled},
 * a seccomp policy), {@link #isAvailable()} is false and {@link #unavailabilityCause()} says why.
 */
public final class IoUringProbe {
    /** One line of the probe: a flag, feature, opcode or behaviour, the kernel that brings it, and the answer. */
    public record Entry(String area, String name, String since, boolean available, boolean neededByRingwire) { }

    private static volatile IoUringProbe instance;

    private final String kernelRelease;
    private final Throwable unavailabilityCause;
    private final List<Entry> entries;
    private final int setupFlags;
    private final int features;
    private final boolean[] ops = new boolean[256];
    private final boolean multishotAccept;
    private final boolean multishotRecv;
    private final boolean bufferRing;
    private final boolean registeredRingFd;

    private IoUringProbe() {
        this.kernelRelease = readKernelRelease();
        List<Entry> list = new ArrayList<>();
        Throwable cause = null;
        int granted = 0;
        int feats = 0;
        boolean accept = false;
        boolean recv = false;
        boolean pbuf = false;
        boolean ringFd = false;
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer(false).noSqArray(false).build()) {
            feats = ring.features();
            granted = probeSetupFlags();
            probeOps(ring);
            ringFd = ring.registerRingFd();
            try (BufferRing buffers = BufferRing.register(ring, (short) 7, 2, 64)) {
                pbuf = true;
                recv = tryMultishot(ring, false, buffers.groupId());
            } catch (NativeIoException e) {
                pbuf = false;
            }
            accept = tryMultishot(ring, true, (short) 0);
        } catch (Throwable t) {
            cause = t;
        }
        this.unavailabilityCause = cause;
        this.setupFlags = granted;
        this.features = feats;
        this.multishotAccept = accept;
        this.multishotRecv = recv;
        this.bufferRing = pbuf;
        this.registeredRingFd = ringFd;

        addSetup(list, "SINGLE_ISSUER", IORING_SETUP_SINGLE_ISSUER, "6.0", true);
        addSetup(list, "DEFER_TASKRUN", IORING_SETUP_DEFER_TASKRUN, "6.1", true);
        addSetup(list, "COOP_TASKRUN", IORING_SETUP_COOP_TASKRUN, "5.19", false);
        addSetup(list, "TASKRUN_FLAG", IORING_SETUP_TASKRUN_FLAG, "5.19", false);
        addSetup(list, "SUBMIT_ALL", IORING_SETUP_SUBMIT_ALL, "5.18", true);
        addSetup(list, "CQSIZE", IORING_SETUP_CQSIZE, "5.5", true);
        addSetup(list, "CLAMP", IORING_SETUP_CLAMP, "5.6", true);
        addSetup(list, "R_DISABLED", IORING_SETUP_R_DISABLED, "5.10", true);
        addSetup(list, "NO_SQARRAY", IORING_SETUP_NO_SQARRAY, "6.6", false);
        addSetup(list, "CQE_MIXED", IORING_SETUP_CQE_MIXED, "6.18", false);

        addFeature(list, "SINGLE_MMAP", IORING_FEAT_SINGLE_MMAP, "5.4", true);
        addFeature(list, "NODROP", IORING_FEAT_NODROP, "5.5", true);
        addFeature(list, "SUBMIT_STABLE", IORING_FEAT_SUBMIT_STABLE, "5.5", true);
        addFeature(list, "FAST_POLL", IORING_FEAT_FAST_POLL, "5.7", true);
        addFeature(list, "EXT_ARG", IORING_FEAT_EXT_ARG, "5.11", true);
        addFeature(list, "NATIVE_WORKERS", IORING_FEAT_NATIVE_WORKERS, "5.12", false);
        addFeature(list, "CQE_SKIP", IORING_FEAT_CQE_SKIP, "5.17", false);
        addFeature(list, "LINKED_FILE", IORING_FEAT_LINKED_FILE, "5.17", false);
        addFeature(list, "REG_REG_RING", IORING_FEAT_REG_REG_RING, "6.3", false);
        addFeature(list, "RECVSEND_BUNDLE", IORING_FEAT_RECVSEND_BUNDLE, "6.10", false);
        addFeature(list, "MIN_TIMEOUT", IORING_FEAT_MIN_TIMEOUT, "6.12", false);
        addFeature(list, "NO_IOWAIT", IORING_FEAT_NO_IOWAIT, "6.15", false);

        list.add(new Entry("behaviour", "multishot ACCEPT", "5.19", accept, true));
        list.add(new Entry("behaviour", "multishot RECV", "6.0", recv, true));
        list.add(new Entry("behaviour", "provided buffer ring (PBUF_RING)", "5.19", pbuf, true));
        list.add(new Entry("behaviour", "registered ring fd (RING_FDS)", "5.18", ringFd, false));

        addOp(list, IORING_OP_NOP, "5.1", true);
        addOp(list, IORING_OP_WRITEV, "5.1", true);
        addOp(list, IORING_OP_POLL_ADD, "5.1", false);
        addOp(list, IORING_OP_SENDMSG, "5.3", true);
        addOp(list, IORING_OP_RECVMSG, "5.3", false);
        addOp(list, IORING_OP_TIMEOUT, "5.4", true);
        addOp(list, IORING_OP_ACCEPT, "5.5", true);
        addOp(list, IORING_OP_ASYNC_CANCEL, "5.5", true);
        addOp(list, IORING_OP_LINK_TIMEOUT, "5.5", false);
        addOp(list, IORING_OP_CONNECT, "5.5", true);
        addOp(list, IORING_OP_CLOSE, "5.6", true);
        addOp(list, IORING_OP_READ, "5.6", true);
        addOp(list, IORING_OP_WRITE, "5.6", false);
        addOp(list, IORING_OP_SEND, "5.6", true);
        addOp(list, IORING_OP_RECV, "5.6", true);
        addOp(list, IORING_OP_SPLICE, "5.7", false);
        addOp(list, IORING_OP_SHUTDOWN, "5.11", true);
        addOp(list, IORING_OP_MSG_RING, "5.18", false);
        addOp(list, IORING_OP_SOCKET, "5.19", false);
        addOp(list, IORING_OP_SEND_ZC, "6.0", false);
        addOp(list, IORING_OP_SENDMSG_ZC, "6.1", false);
        addOp(list, IORING_OP_READ_MULTISHOT, "6.7", false);
        addOp(list, IORING_OP_BIND, "6.11", false);
        addOp(list, IORING_OP_LISTEN, "6.11", false);
        addOp(list, IORING_OP_RECV_ZC, "6.15", false);
        this.entries = List.copyOf(list);
    }

    /** @return the probe of this JVM's kernel, made on first use */
    public static IoUringProbe get() {
        IoUringProbe p = instance;
        if (p == null) {
            synchronized (IoUringProbe.class) {
                p = instance;
                if (p == null) {
                    instance = p = new IoUringProbe();
                }
            }
        }
        return p;
    }

    /** @return whether a ring could be created at all */
    public boolean isAvailable() {
        return unavailabilityCause == null;
    }

    /** @return why io_uring is unusable, or {@code null} */
    public Throwable unavailabilityCause() {
        return unavailabilityCause;
    }

    /** @return {@code uname -r} */
    public String kernelRelease() {
        return kernelRelease;
    }

    /** @return every probed item, in table order */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * @param opcode an {@code IORING_OP_*}
     * @return whether the kernel supports it
     */
    public boolean isOpSupported(int opcode) {
        return opcode >= 0 && opcode < ops.length && ops[opcode];
    }

    /**
     * @param flag an {@code IORING_SETUP_*} flag
     * @return whether a ring with it (and its prerequisites) could be created
     */
    public boolean isSetupFlagSupported(int flag) {
        return (setupFlags & flag) == flag;
    }

    /**
     * @param feature an {@code IORING_FEAT_*} bit
     * @return whether the kernel reports it
     */
    public boolean hasFeature(int feature) {
        return (features & feature) == feature;
    }

    /** @return whether multishot ACCEPT works [5.19] */
    public boolean isMultishotAcceptSupported() {
        return multishotAccept;
    }

    /** @return whether multishot RECV works [6.0] */
    public boolean isMultishotRecvSupported() {
        return multishotRecv;
    }

    /** @return whether provided buffer rings can be registered [5.19] */
    public boolean isBufferRingSupported() {
        return bufferRing;
    }

    /** @return whether the ring fd can be registered [5.18] */
    public boolean isRegisteredRingFdSupported() {
        return registeredRingFd;
    }

    /** @return the items Ringwire relies on that this kernel lacks, each with the version that brings it */
    public List<String> missingForRingwire() {
        List<String> missing = new ArrayList<>();
        if (!isAvailable()) {
            missing.add("io_uring itself: " + unavailabilityCause);
            return missing;
        }
        for (Entry e : entries) {
            if (e.neededByRingwire() && !e.available()) {
                missing.add(e.name() + " (" + e.since() + ")");
            }
        }
        return missing;
    }

    /** @return the oldest kernel release that has everything Ringwire needs, e.g. {@code "6.1"} */
    public String kernelWithAllNeeded() {
        String newest = "0";
        for (Entry e : entries) {
            if (e.neededByRingwire() && compareReleases(e.since(), newest) > 0) {
                newest = e.since();
            }
        }
        return newest;
    }

    /** Compares two {@code major.minor} releases numerically. */
    static int compareReleases(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /**
     * @param flags {@code IORING_SETUP_*} bits
     * @return their names joined with {@code |}
     */
    public static String setupFlagNames(int flags) {
        String[] names = {"IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE", "CLAMP", "ATTACH_WQ", "R_DISABLED", "SUBMIT_ALL",
            "COOP_TASKRUN", "TASKRUN_FLAG", "SQE128", "CQE32", "SINGLE_ISSUER", "DEFER_TASKRUN", "NO_MMAP",
            "REGISTERED_FD_ONLY", "NO_SQARRAY", "HYBRID_IOPOLL", "CQE_MIXED"};
        StringJoiner j = new StringJoiner("|");
        for (int i = 0; i < 32; i++) {
            if ((flags & (1 << i)) != 0) {
                j.add(i < names.length ? names[i] : "1<<" + i);
            }
        }
        return j.length() == 0 ? "0" : j.toString();
    }

    // ------------------------------------------------------------------------------------------ probing

    private void addSetup(List<Entry> list, String name, int flag, String since, boolean needed) {
        list.add(new Entry("setup", name, since, isSetupFlagSupported(flag), needed));
    }

    private void addFeature(List<Entry> list, String name, int bit, String since, boolean needed) {
        list.add(new Entry("feature", name, since, hasFeature(bit), needed));
    }

    private void addOp(List<Entry> list, byte op, String since, boolean needed) {
        list.add(new Entry("opcode", IoUringConstants.opName(op), since, isOpSupported(op), needed));
    }

    /** Tries each set-up flag on a two-entry ring, with the flags it requires. */
    private static int probeSetupFlags() {
        int[][] tries = {
            {IORING_SETUP_CQSIZE, 0}, {IORING_SETUP_CLAMP, 0}, {IORING_SETUP_R_DISABLED, 0},
            {IORING_SETUP_SUBMIT_ALL, 0}, {IORING_SETUP_COOP_TASKRUN, 0},
            {IORING_SETUP_TASKRUN_FLAG, IORING_SETUP_COOP_TASKRUN}, {IORING_SETUP_SINGLE_ISSUER, 0},
            {IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER}, {IORING_SETUP_NO_SQARRAY, 0},
            {IORING_SETUP_CQE_MIXED, 0},
        };
        int granted = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(IoUringParams.LAYOUT);
            for (int[] t : tries) {
                params.fill((byte) 0);
                params.set(JAVA_INT, IoUringParams.FLAGS_OFFSET, t[0] | t[1]);
                params.set(JAVA_INT, IoUringParams.CQ_ENTRIES_OFFSET, 4);
                int fd = Libc.ioUringSetup(2, params);
                if (fd >= 0) {
                    Libc.close(fd);
                    granted |= t[0] | t[1];
                }
            }
        }
        return granted;
    }

    private void probeOps(IoUring ring) {
        // struct io_uring_probe { u8 last_op; u8 ops_len; u16 resv; u32 resv2[3]; struct io_uring_probe_op ops[]; }
        // struct io_uring_probe_op { u8 op; u8 resv; u16 flags; u32 resv2; }
        int n = 256;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment probe = arena.allocate(16 + 8L * n, 8);
            if (ring.register(IORING_REGISTER_PROBE, probe, n) < 0) {
                return;
            }
            int len = Byte.toUnsignedInt(probe.get(JAVA_BYTE, 1));
            for (int i = 0; i < len; i++) {
                long op = 16 + 8L * i;
                if ((probe.get(JAVA_SHORT, op + 2) & IO_URING_OP_SUPPORTED) != 0) {
                    ops[Byte.toUnsignedInt(probe.get(JAVA_BYTE, op))] = true;
                }
            }
        }
    }

    /**
     * Arms a multishot ACCEPT on a listening loopback socket (or a multishot RECV on a bound UDP socket), cancels it,
     * and reads the answer: {@code -EINVAL} means the kernel does not know the multishot flag.
     */
    private static boolean tryMultishot(IoUring ring, boolean accept, short group) throws IOException {
        int fd = Sockets.open(SocketConstants.AF_INET, accept ? SocketConstants.SOCK_STREAM : SocketConstants.SOCK_DGRAM);
        try {
            Sockets.bind(fd, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            if (accept) {
                Sockets.listen(fd, 1);
                ring.sq().prepAcceptMultishot(fd, SocketConstants.SOCK_NONBLOCK | SocketConstants.SOCK_CLOEXEC, 1);
            } else {
                ring.sq().prepRecvMultishot(fd, group, 0, 1);
            }
            ring.sq().prepCancel(1, 0, 2);
            int[] result = {Integer.MIN_VALUE};
            for (int i = 0; i < 2 && result[0] == Integer.MIN_VALUE; i++) {
                ring.submitAndWait(1, 1_000_000_000L);
                ring.cq().drain((ud, res, flags) -> {
                    if (ud == 1) {
                        result[0] = res;
                    }
                }, 8);
            }
            return result[0] == -Errno.ECANCELED;
        } finally {
            Libc.close(fd);
        }
    }

    private static String readKernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            return System.getProperty("os.version");
        }
    }
}
