package io.ringwire.transport;

import io.netty.util.internal.SystemPropertyUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.OpenFileLimit;
import io.ringwire.uring.SubmissionQueue;

/**
 * A loop's fixed-file table: either slots the loop hands out to channels for their fds ({@link #takeFileSlot}), or,
 * with direct descriptors, the sockets themselves, in slots the kernel allocates. On the loop only.
 */
final class FixedFileTable {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(FixedFileTable.class);

    /** The most slots one table may have (IORING_MAX_FIXED_FILES). */
    static final int MAX_TABLE_SLOTS = 1 << 20;

    private final RingwireIoHandler loop;
    private final IoUring ring;
    private final SubmissionQueue sq;
    private final RingwireIoHandlerConfig config;
    private final RingwireCounters counters;
    /**
     * Stream connections live in the table as direct descriptors ({@link RingwireIoHandlerConfig#directDescriptors()},
     * where the kernel has what they need): the kernel allocates every slot, and fd connections take none.
     */
    private boolean directDescriptors;
    /** Free slots of the table, taken from the end; null without a table. */
    private int[] freeFileSlots;
    private int freeFileSlotCount;

    FixedFileTable(RingwireIoHandler loop, IoUring ring, RingwireIoHandlerConfig config, RingwireCounters counters) {
        this.loop = loop;
        this.ring = ring;
        this.sq = ring.sq();
        this.config = config;
        this.counters = counters;
        // (they live in the fixed-file table: fixedFiles 0, no table, turns them off too)
        this.directDescriptors = config.directDescriptors() && config.fixedFiles() > 0 && directDescriptorsAvailable();
    }

    /** Registers the table the configuration asks for, if any; on the loop's first {@code initialize()}. */
    void register() throws NativeIoException {
        if (directDescriptors) {
            registerDirectTable();
        } else if (config.fixedFiles() > 0) {
            registerFileTable();
        }
    }

    /**
     * The fixed-file table, as large as configured but within the open-file soft limit (the kernel refuses more,
     * EMFILE). Without one (a kernel before 5.19, or a refusal), channels name their fds, as they did before; said
     * once, at info level.
     */
    private void registerFileTable() throws NativeIoException {
        int slots = (int) Math.min(config.fixedFiles(), OpenFileLimit.current().soft());
        int ret = slots > 0 ? ring.registerFileTable(slots) : -Errno.EMFILE;
        if (ret < 0) {
            logger.info("no fixed-file table of {} slots ({}): connections name their fds", slots, Errno.name(-ret));
            return;
        }
        freeFileSlots = new int[slots];
        for (int i = 0; i < slots; i++) {
            freeFileSlots[i] = slots - 1 - i; // slot 0 first
        }
        freeFileSlotCount = slots;
        counters.fixedFileSlots = slots;
    }

    /**
     * The table for direct descriptors: as large as the open-file soft limit, the most the kernel allows one table
     * (EMFILE beyond), registered sparse: an empty slot costs the kernel 8 bytes and a bit. Without it the loop's
     * connections use fds, said once.
     */
    private void registerDirectTable() throws NativeIoException {
        int slots = (int) Math.min(MAX_TABLE_SLOTS, OpenFileLimit.current().soft());
        int ret = ring.registerFileTable(slots);
        if (ret < 0) {
            directDescriptors = false;
            logger.warn("directDescriptors: the kernel refused a fixed-file table of {} slots ({}): {}'s "
                + "connections use file descriptors", slots, Errno.name(-ret), loop.executor());
            return;
        }
        counters.fixedFileSlots = slots;
    }

    /**
     * A client channel is made before it knows its loop: its socket is made when it joins one, in a slot (SOCKET),
     * never an fd, when the loops have direct descriptors by default; otherwise it opens one at once, as without
     * direct descriptors, which goes into the table when it joins a loop that has them.
     *
     * @return whether client channels made now leave their socket to the loop they join, never holding an fd: the
     *         loops have direct descriptors by default ({@code -Dringwire.directDescriptors=true}) and the kernel has
     *         them and can make a socket in a slot
     */
    static boolean clientSocketsInSlots() {
        Boolean o = TestHooks.clientSocketsInSlots;
        return (o != null ? o : DirectByDefault.ON) && directDescriptorsAvailable()
            && IoUringProbe.get().isSocketDirectSupported();
    }

    /** {@link RingwireIoHandlerConfig#directDescriptors()}'s system property, read once. */
    private static final class DirectByDefault {
        static final boolean ON = SystemPropertyUtil.getBoolean(RingwireIoHandlerConfig.DIRECT_DESCRIPTORS_PROPERTY,
            RingwireIoHandlerConfig.DIRECT_DESCRIPTORS_DEFAULT);
    }
    private static volatile boolean directFallbackLogged;

    /**
     * @return whether this kernel has what direct descriptors need; if not, says once (at info level) what is
     *         missing and that connections use file descriptors
     */
    static boolean directDescriptorsAvailable() {
        IoUringProbe probe = IoUringProbe.get();
        if (probe.isDirectDescriptorsSupported()) {
            return true;
        }
        if (!directFallbackLogged) {
            directFallbackLogged = true;
            logger.info("directDescriptors asked for, but this kernel lacks {}: connections use file descriptors",
                String.join(", ", probe.missingForDirectDescriptors()));
        }
        return false;
    }

    /** @return whether the loop's stream connections live in the table without an fd */
    boolean directDescriptors() {
        return directDescriptors;
    }

    /** A direct descriptor came into the table (accepted, made, or moved here): counted as a slot in use. */
    void slotTaken() {
        counters.fixedFiles++;
    }

    /**
     * Empties a slot of a direct descriptor with a CLOSE SQE that leaves with the loop's next enter, after every SQE
     * queued before it (those naming the slot take the file first; an operation already issued keeps it until it
     * ends). When the SQ refuses, it submits what is queued and empties the slot at once (io_uring_register). On the
     * loop only.
     */
    void closeSlot(int slot) {
        if (ring.isClosed()) {
            return; // the table went with the ring
        }
        if (sq.tryReserve()) {
            counters.fixedFiles--;
            sq.prepCloseDirect(slot, UserData.encode(UserData.HANDLER_ID, IoUringConstants.IORING_OP_CLOSE, slot));
            return;
        }
        emptySlotNow(slot);
    }

    /**
     * Empties a direct descriptor's slot now (io_uring_register), after submitting the SQEs queued before: for a
     * socket that leaves the table for an fd, whose holder must then have the last reference. On the loop only.
     */
    void emptySlotNow(int slot) {
        if (ring.isClosed()) {
            return;
        }
        counters.fixedFiles--;
        loop.submitBeforeClose();
        int ret = ring.updateFile(slot, -1);
        if (ret != 1) {
            logger.warn("could not empty the direct descriptor's slot {}: {}", slot, Errno.name(-ret));
        }
    }

    /** The completion of a {@link #closeSlot} CLOSE. */
    void slotClosed(int slot, int res) {
        if (res < 0) {
            logger.debug("emptying direct descriptor slot {} failed: {}", slot, Errno.name(res));
        }
    }

    /**
     * Puts {@code fd} in a free slot of the table, for a channel's sends and receives (one io_uring_register call).
     *
     * @return the slot, or -1 when the loop has no table, it is full, or the kernel refused (the channel then names its
     *         fd, as without a table)
     */
    int takeFileSlot(int fd) {
        if (freeFileSlotCount == 0 || ring.isClosed()) { // (no free list with direct descriptors: the kernel's)
            return -1;
        }
        int slot = freeFileSlots[--freeFileSlotCount];
        int ret = ring.updateFile(slot, fd);
        if (ret != 1) {
            freeFileSlots[freeFileSlotCount++] = slot;
            logger.debug("fixed-file slot {} refused fd {}: {}", slot, fd, Errno.name(-ret));
            return -1;
        }
        counters.fixedFiles++;
        return slot;
    }

    /**
     * Empties a slot from {@link #takeFileSlot} (one io_uring_register call): requests already issued keep the file
     * they took, and once they end, closing the fd closes the socket. Call it after every SQE naming the slot has been
     * submitted ({@link RingwireIoHandler#submitBeforeClose()}).
     */
    void releaseFileSlot(int slot) {
        if (ring.isClosed()) {
            return; // the table went with the ring
        }
        int ret = ring.updateFile(slot, -1);
        if (ret != 1) {
            // the slot may still hold the file: never hand it out again (it cannot name another socket by mistake)
            logger.warn("could not empty fixed-file slot {}: {}", slot, Errno.name(-ret));
            return;
        }
        freeFileSlots[freeFileSlotCount++] = slot;
        counters.fixedFiles--;
    }
}
