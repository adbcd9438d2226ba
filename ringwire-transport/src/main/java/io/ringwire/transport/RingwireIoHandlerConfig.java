package io.ringwire.transport;

import io.netty.util.internal.SystemPropertyUtil;

/**
 * Settings of a {@link RingwireIoHandler}, one ring per event loop. Build with {@link #builder()}; the defaults suit
 * a server with a few thousand connections per loop, and each can be changed without code with a system property
 * named after it: {@code -Dringwire.ringEntries}, {@code ringwire.cqEntries}, {@code ringwire.bufferRingEntries},
 * {@code ringwire.initialBufferRingEntries}, {@code ringwire.bufferSize}, {@code ringwire.incrementalBuffers},
 * {@code ringwire.iovecCapacity},
 * {@code ringwire.maxBytesPerWrite}, {@code ringwire.deferTaskrun}, {@code ringwire.registerRingFd},
 * {@code ringwire.directReceive}, {@code ringwire.singleIssuer}, {@code ringwire.noSqArray},
 * {@code ringwire.multishotRecv}, {@code ringwire.bufferRing}, {@code ringwire.fixedFiles},
 * {@code ringwire.minWaitMicros}, {@code ringwire.bufferRingShrinkMillis}, {@code ringwire.directDescriptors}.
 *
 * <p>Every optional io_uring feature Ringwire uses can be turned off here, to work around a kernel bug or to measure
 * what it brings; the transport's echo tests run with each one off.
 *
 * @param ringEntries        SQ size
 * @param cqEntries          CQ size; multishot requests post many CQEs per SQE, so keep it several times the SQ
 * @param bufferRingEntries  provided buffers for receiving (a power of two), 0 for the default: 64 with incremental
 *                           buffers, 1024 without. The most the ring has: a classic ring starts with
 *                           {@code initialBufferRingEntries} in use and doubles each time it runs dry
 * @param initialBufferRingEntries buffers a classic ring starts with (0 for the default, 64; at most
 *                           {@code bufferRingEntries}): a quiet loop keeps only these resident, since a ring hands out
 *                           buffers first-in first-out and in time touches every one it has; a receive that finds
 *                           the ring empty makes it double and is armed on it again. Set it to
 *                           {@code bufferRingEntries} to have every buffer from the start
 * @param bufferSize         bytes per provided buffer, 0 for the default: 64 KiB with incremental buffers, 8 KiB
 *                           without
 * @param incrementalBuffers consume receive buffers incrementally (IOU_PBUF_RING_INC, Linux 6.12) when the kernel
 *                           can: one 64 KiB buffer serves many small receives or one bulk read; older kernels fall
 *                           back to 8 KiB buffers. Experimental and off by default: a CQE does not say where in the
 *                           buffer its bytes start, so Ringwire tracks it from the order of completions, and the
 *                           kernel may post multishot and single-shot completions out of consumption order; one
 *                           corrupted echo in Netty's testsuite was seen with it on
 * @param iovecCapacity      iovecs the loop can hand to writes in one iteration
 * @param maxBytesPerWrite   cap on the bytes one write SQE carries (outbound bytes in flight per channel)
 * @param deferTaskrun       ask for DEFER_TASKRUN [6.1] (needs singleIssuer; falls back to COOP_TASKRUN)
 * @param registerRingFd     register the ring fd with the loop thread
 * @param directReceive      let bulk streams receive straight into allocator buffers (single-shot RECV, no copy)
 *                           instead of through the shared ring; see {@link RingwireSocketChannel}
 * @param singleIssuer       ask for SINGLE_ISSUER [6.0] (only the loop's thread submits)
 * @param noSqArray          ask for NO_SQARRAY [6.6] (no SQ index array)
 * @param multishotRecv      receive with one multishot RECV per connection [6.0]; off: one single-shot RECV at a
 *                           time, re-armed after each completion (still from the shared buffer ring)
 * @param bufferRing         receive into the loop's shared provided buffer ring [5.19]; off: every receive is a
 *                           single-shot RECV into a buffer from the channel's allocator, which then stays pinned by
 *                           each connection while its receive waits (multishotRecv has no effect)
 * @param fixedFiles         slots of the loop's fixed-file table [5.19] (at most the open-file soft limit), 0 for
 *                           none: a connection's sends and receives name its slot, which saves the kernel an fd
 *                           look-up and a reference count per SQE; connections beyond the table use their fd. The
 *                           table costs the kernel 8 bytes per slot, and a connection two io_uring_register calls (at
 *                           its 16th SQE, when it takes its slot, and at close): short-lived ones never take one
 * @param minWaitMicros      0 (the default) for none; else an idle loop, once asleep, is not woken by a completion
 *                           (nor by a task from another thread) until this many microseconds have passed, unless 64
 *                           of them have come in; after that the first one wakes it. Fewer wake-ups per message at a
 *                           moderate load (many connections, each with a message now and then: the front end of
 *                           an RSocket evaluation of Netty's incubator io_uring transport, jauntsdn, 2021), for up
 *                           to this much latency on each. The loop sleeps with the minimum only while its
 *                           completions come at least 4 per minimum (judged every 10 ms or 16 minimums): below that a
 *                           minimum rarely collects a second one and costs more than it saves. Needs
 *                           IORING_FEAT_MIN_TIMEOUT (Linux 6.12); without it, ignored with a log line. Scheduled tasks
 *                           still run on time
 * @param bufferRingShrinkMillis how often a classic ring that grew looks at what it needed (default 10,000; 0: it
 *                           never shrinks): when no batch of completions in that time carried more than a quarter of
 *                           its buffers' receives, it shrinks to twice the most any batch carried (at least
 *                           {@code initialBufferRingEntries}) and gives the rest's pages back to the system, so a burst
 *                           (connections set up together, a bulk transfer) does not leave its buffers resident for
 *                           the loop's life
 * @param directDescriptors  stream connections (TCP and Unix domain) live only in the loop's fixed-file table, as
 *                           direct descriptors, and hold no file descriptor: a loop holds as many as the open-file
 *                           limit, and N loops N times that. The listener accepts into its loop's table (multishot
 *                           ACCEPT with IORING_FILE_INDEX_ALLOC), a connection Netty registers with another loop moves
 *                           to that loop's table (MSG_RING), and a connection with an fd that joins it (a client
 *                           made before it knew its loop) goes into the table and closes its fd; with the system
 *                           property on, client sockets are made in a slot (SOCKET) and never hold an fd. The table
 *                           is then registered at the open-file limit (8 bytes of kernel memory per slot). Socket
 *                           options go
 *                           through URING_CMD, and the few calls that need an fd (getsockname, TCP-level
 *                           getsockopt, TCP_INFO) get one for the call (FIXED_FD_INSTALL) and close it at once. Needs
 *                           Linux 6.8 (SOCKET and ACCEPT into a slot 5.19, MSG_RING SEND_FD 6.0, URING_CMD socket
 *                           options 6.7, FIXED_FD_INSTALL 6.8); without, connections use fds, said once in the log.
 *                           {@code fixedFiles} 0 (no table) turns them off too. See {@link RingwireSocketChannel}
 */
public record RingwireIoHandlerConfig(int ringEntries, int cqEntries, int bufferRingEntries,
                                      int initialBufferRingEntries, int bufferSize,
                                      boolean incrementalBuffers, int iovecCapacity, int maxBytesPerWrite,
                                      boolean deferTaskrun, boolean registerRingFd, boolean directReceive,
                                      boolean singleIssuer, boolean noSqArray, boolean multishotRecv,
                                      boolean bufferRing, int fixedFiles, int minWaitMicros,
                                      int bufferRingShrinkMillis, boolean directDescriptors) {
    /** The system property of {@link #directDescriptors()}. */
    static final String DIRECT_DESCRIPTORS_PROPERTY = "ringwire.directDescriptors";
    /** {@link #directDescriptors()} without the property. */
    static final boolean DIRECT_DESCRIPTORS_DEFAULT = false;

    /** Receive buffers with incremental consumption: few and large. */
    static final int INCREMENTAL_ENTRIES = 64;
    static final int INCREMENTAL_SIZE = 64 * 1024;
    /** Receive buffers without it: one receive uses a whole buffer, so many and small. */
    static final int CLASSIC_ENTRIES = 1024;
    static final int CLASSIC_SIZE = 8 * 1024;

    /**
     * A configuration; prefer {@link #builder()}, which starts from the defaults and the system properties.
     *
     * @throws IllegalArgumentException if a value is out of its range (the message names it)
     */
    public RingwireIoHandlerConfig {
        positive("ringEntries", ringEntries);
        positive("cqEntries", cqEntries);
        if (initialBufferRingEntries < 0) {
            throw new IllegalArgumentException("initialBufferRingEntries must be positive, or 0 for the default: "
                + "initialBufferRingEntries=" + initialBufferRingEntries);
        }
        if (bufferSize < 0) {
            throw new IllegalArgumentException("bufferSize must be positive, or 0 for the default: bufferSize="
                + bufferSize);
        }
        positive("iovecCapacity", iovecCapacity);
        positive("maxBytesPerWrite", maxBytesPerWrite);
        if (fixedFiles < 0) {
            throw new IllegalArgumentException("fixedFiles must be positive, or 0 for none: fixedFiles=" + fixedFiles);
        }
        if (minWaitMicros < 0) {
            throw new IllegalArgumentException("minWaitMicros must be positive, or 0 for none: minWaitMicros="
                + minWaitMicros);
        }
        if (bufferRingShrinkMillis < 0) {
            throw new IllegalArgumentException("bufferRingShrinkMillis must be positive, or 0 for never: "
                + "bufferRingShrinkMillis=" + bufferRingShrinkMillis);
        }
        if (bufferRingEntries != 0 && (Integer.bitCount(bufferRingEntries) != 1 || bufferRingEntries > 32768)) {
            throw new IllegalArgumentException("bufferRingEntries must be a power of two up to 32768, or 0 for the "
                + "default: bufferRingEntries=" + bufferRingEntries);
        }
    }

    /**
     * @param incremental whether the ring in use consumes buffers incrementally
     * @return provided buffers to register
     */
    int bufferRingEntries(boolean incremental) {
        return bufferRingEntries != 0 ? bufferRingEntries : incremental ? INCREMENTAL_ENTRIES : CLASSIC_ENTRIES;
    }

    /** Buffers a classic ring starts with by default. */
    static final int INITIAL_ENTRIES = 64;

    /** @return buffers a classic ring starts with: the default or the setting, at most its entries */
    int initialRingBuffers() {
        int most = bufferRingEntries(false);
        return Math.min(most, initialBufferRingEntries != 0 ? initialBufferRingEntries : INITIAL_ENTRIES);
    }

    /**
     * @param incremental whether the ring in use consumes buffers incrementally
     * @return bytes per provided buffer
     */
    int bufferSize(boolean incremental) {
        return bufferSize != 0 ? bufferSize : incremental ? INCREMENTAL_SIZE : CLASSIC_SIZE;
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + name + "=" + value);
        }
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** Builder for {@link RingwireIoHandlerConfig}. */
    public static final class Builder {
        // defaults, each overridable with a system property of the same name under "ringwire." (Netty's convention)
        private int ringEntries = SystemPropertyUtil.getInt("ringwire.ringEntries", 4096);
        private int cqEntries = SystemPropertyUtil.getInt("ringwire.cqEntries", 16384);
        private int bufferRingEntries = SystemPropertyUtil.getInt("ringwire.bufferRingEntries", 0);
        private int initialBufferRingEntries = SystemPropertyUtil.getInt("ringwire.initialBufferRingEntries", 0);
        private int bufferSize = SystemPropertyUtil.getInt("ringwire.bufferSize", 0);
        // off by default: see the incrementalBuffers parameter
        private boolean incrementalBuffers = SystemPropertyUtil.getBoolean("ringwire.incrementalBuffers", false);
        private int iovecCapacity = SystemPropertyUtil.getInt("ringwire.iovecCapacity", 8192);
        private int maxBytesPerWrite = SystemPropertyUtil.getInt("ringwire.maxBytesPerWrite", 1024 * 1024);
        private boolean deferTaskrun = SystemPropertyUtil.getBoolean("ringwire.deferTaskrun", true);
        private boolean registerRingFd = SystemPropertyUtil.getBoolean("ringwire.registerRingFd", true);
        private boolean directReceive = SystemPropertyUtil.getBoolean("ringwire.directReceive", true);
        private boolean singleIssuer = SystemPropertyUtil.getBoolean("ringwire.singleIssuer", true);
        private boolean noSqArray = SystemPropertyUtil.getBoolean("ringwire.noSqArray", true);
        private boolean multishotRecv = SystemPropertyUtil.getBoolean("ringwire.multishotRecv", true);
        private boolean bufferRing = SystemPropertyUtil.getBoolean("ringwire.bufferRing", true);
        private int fixedFiles = SystemPropertyUtil.getInt("ringwire.fixedFiles", 16384);
        private int minWaitMicros = SystemPropertyUtil.getInt("ringwire.minWaitMicros", 0);
        private int bufferRingShrinkMillis = SystemPropertyUtil.getInt("ringwire.bufferRingShrinkMillis", 10_000);
        private boolean directDescriptors = SystemPropertyUtil.getBoolean(DIRECT_DESCRIPTORS_PROPERTY,
            DIRECT_DESCRIPTORS_DEFAULT);

        private Builder() { }

        /**
         * @param v SQ size
         * @return this
         */
        public Builder ringEntries(int v) {
            ringEntries = v;
            return this;
        }

        /**
         * @param v CQ size
         * @return this
         */
        public Builder cqEntries(int v) {
            cqEntries = v;
            return this;
        }

        /**
         * @param v provided buffers (power of two)
         * @return this
         */
        public Builder bufferRingEntries(int v) {
            bufferRingEntries = v;
            return this;
        }

        /**
         * @param v buffers a classic ring starts with (it doubles when it runs dry)
         * @return this
         */
        public Builder initialBufferRingEntries(int v) {
            initialBufferRingEntries = v;
            return this;
        }

        /**
         * @param v bytes per provided buffer
         * @return this
         */
        public Builder bufferSize(int v) {
            bufferSize = v;
            return this;
        }

        /**
         * @param v whether to consume receive buffers incrementally when the kernel can
         * @return this
         */
        public Builder incrementalBuffers(boolean v) {
            incrementalBuffers = v;
            return this;
        }

        /**
         * @param v iovecs per iteration
         * @return this
         */
        public Builder iovecCapacity(int v) {
            iovecCapacity = v;
            return this;
        }

        /**
         * @param v cap on bytes per write SQE
         * @return this
         */
        public Builder maxBytesPerWrite(int v) {
            maxBytesPerWrite = v;
            return this;
        }

        /**
         * @param v whether to ask for DEFER_TASKRUN
         * @return this
         */
        public Builder deferTaskrun(boolean v) {
            deferTaskrun = v;
            return this;
        }

        /**
         * @param v whether to register the ring fd
         * @return this
         */
        public Builder registerRingFd(boolean v) {
            registerRingFd = v;
            return this;
        }

        /**
         * @param v whether bulk streams may receive straight into allocator buffers
         * @return this
         */
        public Builder directReceive(boolean v) {
            directReceive = v;
            return this;
        }

        /**
         * @param v whether to ask for SINGLE_ISSUER (DEFER_TASKRUN needs it)
         * @return this
         */
        public Builder singleIssuer(boolean v) {
            singleIssuer = v;
            return this;
        }

        /**
         * @param v whether to ask for NO_SQARRAY
         * @return this
         */
        public Builder noSqArray(boolean v) {
            noSqArray = v;
            return this;
        }

        /**
         * @param v whether connections receive with one multishot RECV
         * @return this
         */
        public Builder multishotRecv(boolean v) {
            multishotRecv = v;
            return this;
        }

        /**
         * @param v whether connections receive into the loop's shared provided buffer ring
         * @return this
         */
        public Builder bufferRing(boolean v) {
            bufferRing = v;
            return this;
        }

        /**
         * @param v slots of the fixed-file table, 0 for none
         * @return this
         */
        public Builder fixedFiles(int v) {
            fixedFiles = v;
            return this;
        }

        /**
         * @param v microseconds an idle loop sleeps through completions, 0 for none
         * @return this
         */
        public Builder minWaitMicros(int v) {
            minWaitMicros = v;
            return this;
        }

        /**
         * @param v how often a ring that grew looks at what it needed and shrinks, in milliseconds; 0: never
         * @return this
         */
        public Builder bufferRingShrinkMillis(int v) {
            bufferRingShrinkMillis = v;
            return this;
        }

        /**
         * @param v whether stream connections live in the loop's fixed-file table without a file descriptor
         * @return this
         */
        public Builder directDescriptors(boolean v) {
            directDescriptors = v;
            return this;
        }

        /** @return the config */
        public RingwireIoHandlerConfig build() {
            return new RingwireIoHandlerConfig(ringEntries, cqEntries, bufferRingEntries, initialBufferRingEntries,
                bufferSize, incrementalBuffers, iovecCapacity, maxBytesPerWrite, deferTaskrun, registerRingFd,
                directReceive, singleIssuer, noSqArray, multishotRecv, bufferRing, fixedFiles, minWaitMicros,
                bufferRingShrinkMillis, directDescriptors);
        }
    }
}
