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
    /** What {@link #probeDirectDescriptors} found: {@code DIRECT_*} bits. */
    private final int direct;

    /** Multishot ACCEPT into direct descriptors (IORING_FILE_INDEX_ALLOC) [5.19]. */
    private static final int DIRECT_ACCEPT = 1;
    /** SOCKET into a direct descriptor [5.19]. */
    private static final int DIRECT_SOCKET = 1 << 1;
    /** MSG_RING moves a direct descriptor to another ring's table (IORING_MSG_SEND_FD) [6.0]. */
    private static final int DIRECT_MSG_RING = 1 << 2;
    /** URING_CMD getsockopt and setsockopt on a socket (SOCKET_URING_OP_GETSOCKOPT, SETSOCKOPT) [6.7]. */
    private static final int DIRECT_SOCKOPT = 1 << 3;
    /** FIXED_FD_INSTALL: a regular fd for a slot [6.8]. */
    private static final int DIRECT_FD_INSTALL = 1 << 4;
    /** BIND on a slot [6.11]. */
    private static final int DIRECT_BIND = 1 << 5;
    /** URING_CMD getsockname and getpeername (SOCKET_URING_OP_GETSOCKNAME) [6.19]. */
    private static final int DIRECT_GETSOCKNAME = 1 << 6;

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
        int directFound = 0;
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
            directFound = probeDirectDescriptors(ring);
        } catch (Throwable t) {
            cause = t;
        }
        this.unavailabilityCause = cause;
        this.setupFlags = granted;
        this.features = feats;
        this.multishotAccept = accept;
        this.multishotRecv = recv;
        this.bufferRing = pbuf;
        this.direct = directFound;

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
        list.add(new Entry("direct", "multishot ACCEPT into a slot", "5.19",
            has(DIRECT_ACCEPT), false));
        list.add(new Entry("direct", "SOCKET into a slot", "5.19", has(DIRECT_SOCKET), false));
        list.add(new Entry("direct", "MSG_RING SEND_FD: slot to ring", "6.0", has(DIRECT_MSG_RING),
            false));
        list.add(new Entry("direct", "URING_CMD get/setsockopt", "6.7", has(DIRECT_SOCKOPT),
            false));
        list.add(new Entry("direct", "FIXED_FD_INSTALL: an fd for a slot", "6.8", has(DIRECT_FD_INSTALL), false));
        list.add(new Entry("direct", "BIND on a slot", "6.11", has(DIRECT_BIND), false));
        list.add(new Entry("direct", "URING_CMD getsockname", "6.19",
            has(DIRECT_GETSOCKNAME), false));

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
        addOp(list, IORING_OP_URING_CMD, "5.19", false);
        addOp(list, IORING_OP_SEND_ZC, "6.0", false);
        addOp(list, IORING_OP_SENDMSG_ZC, "6.1", false);
        addOp(list, IORING_OP_READ_MULTISHOT, "6.7", false);
        addOp(list, IORING_OP_FIXED_FD_INSTALL, "6.8", false);
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

    private boolean has(int bit) {
        return (direct & bit) == bit;
    }

    /**
     * What connections on direct descriptors need that this kernel lacks: sockets living only in a ring's fixed-file
     * table, accepted there (multishot ACCEPT with FILE_INDEX_ALLOC, 5.19), moved between rings (MSG_RING SEND_FD,
     * 6.0), their options read and set without an fd (URING_CMD, 6.7), and a regular fd for the calls that need one
     * (FIXED_FD_INSTALL, 6.8).
     *
     * @return each missing feature with the kernel that brings it; empty when connections can live in slots
     */
    public List<String> missingForDirectDescriptors() {
        List<String> missing = new ArrayList<>();
        if (!isAvailable()) {
            missing.add("io_uring itself: " + unavailabilityCause);
            return missing;
        }
        if (!has(DIRECT_ACCEPT)) {
            missing.add("multishot ACCEPT into a slot (5.19)");
        }
        if (!has(DIRECT_MSG_RING)) {
            missing.add("MSG_RING SEND_FD (6.0)");
        }
        if (!has(DIRECT_SOCKOPT)) {
            missing.add("URING_CMD getsockopt/setsockopt (6.7)");
        }
        if (!has(DIRECT_FD_INSTALL)) {
            missing.add("FIXED_FD_INSTALL (6.8)");
        }
        return missing;
    }

    /**
     * The one check of whether connections can live in direct descriptors (sockets only in a ring's fixed-file table);
     * {@link #missingForDirectDescriptors()} says what is missing when they cannot.
     *
     * @return whether this kernel has everything direct descriptors need
     */
    public boolean isDirectDescriptorsSupported() {
        return missingForDirectDescriptors().isEmpty();
    }

    /** @return whether SOCKET can create a socket straight into a slot [5.19] (client connections without an fd) */
    public boolean isSocketDirectSupported() {
        return has(DIRECT_SOCKET);
    }

    /** @return whether BIND works on a slot [6.11]; without it a slot is bound through an fd installed for the call */
    public boolean isBindSupported() {
        return has(DIRECT_BIND);
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

    /**
     * Tries what connections on direct descriptors use, each on a loopback socket in the scratch ring's fixed-file
     * table (and a second ring's, for MSG_RING); an opcode the kernel does not list is not tried.
     *
     * @return the {@code DIRECT_*} bits that worked
     */
    private int probeDirectDescriptors(IoUring ring) {
        if (ring.registerFileTable(4) < 0) {
            return 0;
        }
        int found = 0;
        int lfd = -1;
        int cfd = -1;
        try (Arena arena = Arena.ofConfined()) {
            lfd = Sockets.open(SocketConstants.AF_INET, SocketConstants.SOCK_STREAM);
            Sockets.bind(lfd, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Sockets.listen(lfd, 4);
            MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
            int saLen = SockAddr.write(Sockets.localAddress(lfd), sa, false);
            ring.sq().prepAcceptMultishotDirect(lfd, SocketConstants.SOCK_NONBLOCK, 1);
            ring.submit();
            cfd = Sockets.open(SocketConstants.AF_INET, SocketConstants.SOCK_STREAM);
            Libc.connect(cfd, sa, saLen); // EINPROGRESS: loopback completes the handshake at once
            int slot = awaitResult(ring, 1);
            if (slot < 0) {
                return 0;
            }
            found |= DIRECT_ACCEPT;
            ring.sq().prepCancel(1, 0, 2);
            awaitResult(ring, 2);
            MemorySegment v = arena.allocate(64, 8);
            if (ops[IORING_OP_URING_CMD]) {
                long sqe = ring.sq().prepCmdSock(SOCKET_URING_OP_GETSOCKOPT, slot, SocketConstants.SOL_SOCKET,
                    SocketConstants.SO_TYPE, v.address(), 4, 3);
                ring.sq().setFixedFileSlot(sqe, slot);
                if (awaitResult(ring, 3) == 4 && v.get(JAVA_INT, 0) == SocketConstants.SOCK_STREAM) {
                    found |= DIRECT_SOCKOPT;
                }
                v.set(JAVA_INT, 8, 64);
                sqe = ring.sq().prepGetsockname(slot, v.address() + 16, v.address() + 8, true, 4);
                ring.sq().setFixedFileSlot(sqe, slot);
                if (awaitResult(ring, 4) == 0) {
                    found |= DIRECT_GETSOCKNAME;
                }
            }
            if (ops[IORING_OP_FIXED_FD_INSTALL]) {
                ring.sq().prepFixedFdInstall(slot, 0, 5);
                int fd = awaitResult(ring, 5);
                if (fd >= 0) {
                    Libc.close(fd);
                    found |= DIRECT_FD_INSTALL;
                }
            }
            if (ops[IORING_OP_MSG_RING]) {
                try (IoUring target = IoUring.builder().entries(2).singleIssuer(false).noSqArray(false).build()) {
                    if (target.registerFileTable(2) >= 0) {
                        ring.sq().prepMsgRingFd(target.fd(), slot, 7, 6);
                        int sent = awaitResult(ring, 6);
                        if (sent >= 0 && awaitResult(target, 7) == sent) {
                            found |= DIRECT_MSG_RING;
                        }
                    }
                }
            }
            if (ops[IORING_OP_SOCKET]) {
                ring.sq().prepSocketDirect(SocketConstants.AF_INET, SocketConstants.SOCK_STREAM
                    | SocketConstants.SOCK_NONBLOCK, 0, -1, 8);
                int socketSlot = awaitResult(ring, 8);
                if (socketSlot >= 0) {
                    found |= DIRECT_SOCKET;
                    if (ops[IORING_OP_BIND]) {
                        int len = SockAddr.write(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), sa,
                            false);
                        long sqe = ring.sq().prepBind(socketSlot, sa.address(), len, 9);
                        ring.sq().setFixedFileSlot(sqe, socketSlot);
                        if (awaitResult(ring, 9) == 0) {
                            found |= DIRECT_BIND;
                        }
                    }
                    ring.sq().prepCloseDirect(socketSlot, 10);
                    awaitResult(ring, 10);
                }
            }
            ring.sq().prepCloseDirect(slot, 11);
            awaitResult(ring, 11);
        } catch (IOException | RuntimeException e) {
            return found; // what worked before it
        } finally {
            if (cfd >= 0) {
                Libc.close(cfd);
            }
            if (lfd >= 0) {
                Libc.close(lfd);
            }
        }
        return found;
    }

    /** Submits and waits (a second at most) for the CQE of {@code userData}; other CQEs are dropped. */
    private static int awaitResult(IoUring ring, long userData) {
        int[] result = {Integer.MIN_VALUE};
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (result[0] == Integer.MIN_VALUE && System.nanoTime() < deadline) {
            ring.submitAndWait(1, 100_000_000L);
            ring.cq().drain((ud, res, flags) -> {
                if (ud == userData && result[0] == Integer.MIN_VALUE) {
                    result[0] = res;
                }
            }, 16);
        }
        return result[0] == Integer.MIN_VALUE ? -Errno.ETIME : result[0];
    }

    private static String readKernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            return System.getProperty("os.version");
        }
    }
}
