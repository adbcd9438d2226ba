package io.ringwire.transport;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import javax.management.JMException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one Ringwire event loop has done, counted as it happens: the numbers that decide io_uring vs epoll.
 * {@link #sqesPerEnter()} is n, the batch per {@code io_uring_enter} of the cost model in "io_uring vs epoll" (Wang
 * Xiaoguang, OpenAnolis, 2021, https://juejin.cn/post/7045098217121251335): io_uring pays (s + t) / n per operation.
 *
 * <p>Written only by the loop's thread; read from anywhere ({@link #of(EventExecutor)}, {@link #all()}). A reader on
 * another thread may see values a few updates old, never torn ones (64-bit fields on a 64-bit JVM).
 */
public final class RingwireCounters {
    private static final Map<Object, RingwireCounters> LIVE = new ConcurrentHashMap<>();
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireCounters.class);
    /** Held while a loop is published or retired and while a listener is added: it sees every loop exactly once. */
    private static final Object LISTENERS_LOCK = new Object();
    private static final List<Listener> LISTENERS = new CopyOnWriteArrayList<>();

    /** The loop's thread name once the loop runs ({@link #publish}); before that the executor's own name. */
    private String name;
    long iterations;
    long enters;
    long sqes;
    long cqes;
    long recvs;
    long recvBytes;
    long writes;
    long writeIovecs;
    long writeBytes;
    long bufferRingExhausted;
    int bufferRingBuffers;
    long bufferRingShrinks;
    long bufferRingReleasedBytes;
    long accepts;
    long acceptBackoffs;
    long handlerFailures;
    long closeSubmits;
    long directRecvs;
    long cqOverflows;
    long sendWaits;
    long zeroCopySends;
    long segmentedSends;
    long groBatches;
    long zeroCopyCopied;
    long zeroCopyRefused;
    long sqRefusals;
    long dryRingFallbacks;
    long minWaits;
    long sendfileBytes;
    long fileRegionCopiedBytes;
    long fileRegionMappedBytes;
    int registrations;
    int fixedFiles;
    int fixedFileSlots;
    int directDescriptors;
    long fdInstalls;
    long msgRingTransfers;
    long syncEnters;
    long inlineWrites;

    RingwireCounters(String name) {
        this.name = name;
    }

    /** Called on the loop's thread when it starts (or resumes on another thread). */
    static void publish(Object loop, RingwireCounters counters) {
        counters.name = Thread.currentThread().getName();
        synchronized (LISTENERS_LOCK) {
            LIVE.put(loop, counters);
            for (Listener l : LISTENERS) {
                tell(l, counters, true);
            }
        }
        if (Boolean.getBoolean(JMX_PROPERTY)) {
            Jmx.register(counters);
        }
    }

    static void retire(Object loop) {
        RingwireCounters c;
        synchronized (LISTENERS_LOCK) {
            c = LIVE.remove(loop);
            if (c != null) {
                for (Listener l : LISTENERS) {
                    tell(l, c, false);
                }
            }
        }
        if (c != null) {
            Jmx.unregister(c);
        }
    }

    /**
     * Told of each Ringwire event loop of this JVM as it starts and as it ends, e.g. to give each loop meters of its
     * own ({@code ringwire-micrometer}'s binder does).
     */
    public interface Listener {
        /**
         * A loop started: on the loop's thread as it starts (again when it resumes on another thread, with the same
         * counters), and from {@link RingwireCounters#addListener} for each loop already running. Keep it short: the
         * loop waits.
         *
         * @param counters the loop's counters, live until {@link #loopEnded} with the same object
         */
        void loopStarted(RingwireCounters counters);

        /**
         * A loop ended (it shuts down): its counters count no more.
         *
         * @param counters the loop's counters, as given to {@link #loopStarted}
         */
        void loopEnded(RingwireCounters counters);
    }

    /**
     * Tells {@code listener} of every loop that starts or ends from now on, and at once of every loop running now
     * (each exactly once: no loop starts or ends while it is told). What a listener throws is logged, and the loop
     * goes on.
     *
     * @param listener told on the loops' threads, and on this one for the loops already running
     */
    public static void addListener(Listener listener) {
        synchronized (LISTENERS_LOCK) {
            LISTENERS.add(listener);
            for (RingwireCounters c : LIVE.values()) {
                tell(listener, c, true);
            }
        }
    }

    /** @param listener a listener {@link #addListener} added: told of no loop from now on */
    public static void removeListener(Listener listener) {
        synchronized (LISTENERS_LOCK) {
            LISTENERS.remove(listener);
        }
    }

    private static void tell(Listener l, RingwireCounters c, boolean started) {
        try {
            if (started) {
                l.loopStarted(c);
            } else {
                l.loopEnded(c);
            }
        } catch (RuntimeException | LinkageError e) {
            logger.warn("a listener of the loops' counters failed for loop {}; the loop goes on", c.name, e);
        }
    }

    /** The system property that registers each loop's counters as a {@link RingwireLoopMXBean}. */
    public static final String JMX_PROPERTY = "ringwire.jmx";

    /** The loops' MXBeans: registered with the platform MBean server while their loops run. */
    private static final class Jmx implements RingwireLoopMXBean {
        private final RingwireCounters c;

        private Jmx(RingwireCounters c) {
            this.c = c;
        }

        /** What this class registered, by counters: a loop resumed on another thread publishes again. */
        private static final Map<RingwireCounters, ObjectName> REGISTERED = new ConcurrentHashMap<>();

        static void register(RingwireCounters c) {
            if (REGISTERED.containsKey(c)) {
                return;
            }
            try {
                ObjectName n = new ObjectName("io.ringwire:type=EventLoop,name=" + ObjectName.quote(c.name));
                ManagementFactory.getPlatformMBeanServer().registerMBean(new Jmx(c), n);
                REGISTERED.put(c, n);
            } catch (JMException | RuntimeException e) {
                // e.g. two live loops whose threads have the same name: the first keeps it
                logger.warn("the counters of loop {} are not registered with JMX: {}", c.name, e.toString());
            }
        }

        static void unregister(RingwireCounters c) {
            ObjectName n = REGISTERED.remove(c);
            if (n == null) {
                return;
            }
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(n);
            } catch (JMException | RuntimeException e) {
                logger.debug("unregistering the counters of loop {} failed", c.name, e);
            }
        }

        @Override public String getName() { return c.name; }
        @Override public long getIterations() { return c.iterations; }
        @Override public long getEnters() { return c.enters; }
        @Override public long getSqes() { return c.sqes; }
        @Override public long getCqes() { return c.cqes; }
        @Override public double getSqesPerEnter() { return c.sqesPerEnter(); }
        @Override public double getCqesPerEnter() { return c.cqesPerEnter(); }
        @Override public long getRecvs() { return c.recvs; }
        @Override public long getRecvBytes() { return c.recvBytes; }
        @Override public double getBytesPerRecv() { return c.bytesPerRecv(); }
        @Override public long getDirectRecvs() { return c.directRecvs; }
        @Override public long getWrites() { return c.writes; }
        @Override public long getWriteBytes() { return c.writeBytes; }
        @Override public long getWriteIovecs() { return c.writeIovecs; }
        @Override public double getIovecsPerWrite() { return c.iovecsPerWrite(); }
        @Override public long getDryRingFallbacks() { return c.dryRingFallbacks; }
        @Override public long getCloseSubmits() { return c.closeSubmits; }
        @Override public long getSendWaits() { return c.sendWaits; }
        @Override public long getZeroCopyCopied() { return c.zeroCopyCopied; }
        @Override public long getZeroCopyRefused() { return c.zeroCopyRefused; }
        @Override public long getSegmentedSends() { return c.segmentedSends; }
        @Override public long getGroBatches() { return c.groBatches; }
        @Override public long getSendfileBytes() { return c.sendfileBytes; }
        @Override public long getFileRegionMappedBytes() { return c.fileRegionMappedBytes; }
        @Override public long getFileRegionCopiedBytes() { return c.fileRegionCopiedBytes; }
        @Override public long getBufferRingExhausted() { return c.bufferRingExhausted; }
        @Override public int getBufferRingBuffers() { return c.bufferRingBuffers; }
        @Override public long getBufferRingShrinks() { return c.bufferRingShrinks; }
        @Override public long getBufferRingReleasedBytes() { return c.bufferRingReleasedBytes; }
        @Override public long getAccepts() { return c.accepts; }
        @Override public long getAcceptBackoffs() { return c.acceptBackoffs; }
        @Override public long getHandlerFailures() { return c.handlerFailures; }
        @Override public long getCqOverflows() { return c.cqOverflows; }
        @Override public long getSqRefusals() { return c.sqRefusals; }
        @Override public int getRegistrations() { return c.registrations; }
        @Override public int getFixedFiles() { return c.fixedFiles; }
        @Override public int getFixedFileSlots() { return c.fixedFileSlots; }
        @Override public int getDirectDescriptors() { return c.directDescriptors; }
        @Override public long getFdInstalls() { return c.fdInstalls; }
        @Override public long getMsgRingTransfers() { return c.msgRingTransfers; }
        @Override public long getSyncEnters() { return c.syncEnters; }
        @Override public long getInlineWrites() { return c.inlineWrites; }
        @Override public long getZeroCopySends() { return c.zeroCopySends; }
        @Override public long getMinWaits() { return c.minWaits; }
        @Override public String getSummary() { return c.toString(); }
    }

    /**
     * @param loop a Ringwire event loop (e.g. {@code channel.eventLoop()})
     * @return its counters, or {@code null} if it is not a live Ringwire loop
     */
    public static RingwireCounters of(EventExecutor loop) {
        return LIVE.get(loop);
    }

    /** @return the counters of every live Ringwire event loop in this JVM */
    public static List<RingwireCounters> all() {
        return List.copyOf(LIVE.values());
    }

    /** @return the loop's thread name (before the loop first runs, the executor's own name) */
    public String name() {
        return name;
    }

    /** @return event-loop iterations (calls of the IoHandler's run) */
    public long iterations() {
        return iterations;
    }

    /** @return {@code io_uring_enter} system calls */
    public long enters() {
        return enters;
    }

    /** @return SQEs the kernel consumed */
    public long sqes() {
        return sqes;
    }

    /** @return CQEs reaped */
    public long cqes() {
        return cqes;
    }

    /** @return recv completions that carried data */
    public long recvs() {
        return recvs;
    }

    /** @return bytes received */
    public long recvBytes() {
        return recvBytes;
    }

    /** @return write SQEs completed (WRITEV/SEND) */
    public long writes() {
        return writes;
    }

    /** @return iovecs handed to those writes */
    public long writeIovecs() {
        return writeIovecs;
    }

    /** @return bytes written */
    public long writeBytes() {
        return writeBytes;
    }

    /** @return times a multishot recv ended with ENOBUFS because the buffer ring was empty */
    public long bufferRingExhausted() {
        return bufferRingExhausted;
    }

    /**
     * @return receive buffers the loop's shared ring has in use: it starts with a few and doubles, up to its
     *         configured entries, each time it runs dry ({@link #bufferRingExhausted()})
     */
    public int bufferRingBuffers() {
        return bufferRingBuffers;
    }

    /**
     * @return times the shared ring began shrinking: a ring that grew and then, for
     *         {@link RingwireIoHandlerConfig#bufferRingShrinkMillis()}, needed no more than a quarter of its buffers in
     *         any batch of completions keeps twice what it needed; the rest come out as they come back
     */
    public long bufferRingShrinks() {
        return bufferRingShrinks;
    }

    /** @return bytes of receive-buffer pages the finished shrinks gave back to the system (madvise) */
    public long bufferRingReleasedBytes() {
        return bufferRingReleasedBytes;
    }

    /**
     * @return connections whose sends and receives name a slot of the loop's fixed-file table right now (the kernel
     *         skips the fd look-up for them), out of {@link #fixedFileSlots()}
     */
    public int fixedFiles() {
        return fixedFiles;
    }

    /**
     * @return slots of the loop's fixed-file table; 0 when it has none (turned off, or refused by the kernel). With
     *         {@link RingwireIoHandlerConfig#directDescriptors()} the table is as large as the open-file limit: the
     *         connections the loop can hold
     */
    public int fixedFileSlots() {
        return fixedFileSlots;
    }

    /**
     * @return connections on direct descriptors registered with this loop now ({@link
     *         RingwireIoHandlerConfig#directDescriptors()}): each lives in a slot of the loop's table and holds no
     *         file descriptor
     */
    public int directDescriptors() {
        return directDescriptors;
    }

    /**
     * @return file descriptors installed for a direct descriptor's call that needed one (FIXED_FD_INSTALL: getsockname,
     *         a TCP-level getsockopt, TCP_INFO, ...) and closed right after it
     */
    public long fdInstalls() {
        return fdInstalls;
    }

    /** @return direct descriptors this loop moved to another loop's table (MSG_RING with SEND_FD) */
    public long msgRingTransfers() {
        return msgRingTransfers;
    }

    /**
     * @return enters made to complete a synchronous call on a direct descriptor (a socket option, an address, an fd
     *         for a call): each is one io_uring_enter besides the loop's own
     */
    public long syncEnters() {
        return syncEnters;
    }

    /**
     * @return writes a bulk stream made at once, with a non-blocking sendmsg(2) (a synchronous call on a direct
     *         descriptor), when its read loop ended; also counted in {@link #writes()}
     */
    public long inlineWrites() {
        return inlineWrites;
    }

    /** @return connections accepted */
    public long accepts() {
        return accepts;
    }

    /** @return times accept paused because the process was out of descriptors (EMFILE/ENFILE) */
    public long acceptBackoffs() {
        return acceptBackoffs;
    }

    /**
     * @return exceptions and errors that code the loop called (a channel's handlers, its logger) threw back into the
     *         loop, which logged them where it could and carried on
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    /**
     * @return extra enters made because a channel closed its fd while an SQE it prepared waited in the SQ (it leaves
     *         before the number can be reused)
     */
    public long closeSubmits() {
        return closeSubmits;
    }

    /** @return bytes of FileRegions sent with sendfile(2), never copied through user space */
    public long sendfileBytes() {
        return sendfileBytes;
    }

    /** @return bytes of FileRegions copied out through their transferTo and sent from a buffer */
    public long fileRegionCopiedBytes() {
        return fileRegionCopiedBytes;
    }

    /** @return bytes of DefaultFileRegions made from a FileChannel, mapped into memory and sent from the mapping */
    public long fileRegionMappedBytes() {
        return fileRegionMappedBytes;
    }

    /** @return receives armed straight into an allocator buffer (bulk streams), not from the shared ring */
    public long directRecvs() {
        return directRecvs;
    }

    /**
     * @return iterations that ended with completions waiting on the kernel's overflow list (the CQ was full); they
     *         are delivered by the next enter, but a count that keeps growing says the CQ is too small
     */
    public long cqOverflows() {
        return cqOverflows;
    }

    /**
     * @return times a datagram channel's sends stopped at a full peer (a unix datagram socket's queue) and waited for
     *         POLLOUT before going on
     */
    public long sendWaits() {
        return sendWaits;
    }

    /** @return writes sent with SEND_ZC or SENDMSG_ZC (see {@link RingwireChannelOption#SEND_ZC_THRESHOLD}) */
    public long zeroCopySends() {
        return zeroCopySends;
    }

    /** @return datagram sends the kernel cut into segments (a SegmentedDatagramPacket: UDP GSO) */
    public long segmentedSends() {
        return segmentedSends;
    }

    /** @return receives that brought several datagrams of one sender at once (UDP_GRO), each passed up on its own */
    public long groBatches() {
        return groBatches;
    }

    /**
     * @return zero-copy sends whose notification said the kernel copied after all (loopback, or a device that
     *         cannot send from user pages): each makes its channel send with a copy from then on
     */
    public long zeroCopyCopied() {
        return zeroCopyCopied;
    }

    /** @return zero-copy sends the kernel refused (EOPNOTSUPP, EINVAL, ENOMEM): sent again with a copy */
    public long zeroCopyRefused() {
        return zeroCopyRefused;
    }

    /**
     * @return times an SQE could not be queued because the SQ was full and io_uring_enter took nothing (EBUSY while
     *         the CQ overflowed); the operation waits for the next iteration, so nothing is lost
     */
    public long sqRefusals() {
        return sqRefusals;
    }

    /**
     * @return receives armed straight into a buffer of the connection's own because its last one found the shared
     *         ring empty (ENOBUFS)
     */
    public long dryRingFallbacks() {
        return dryRingFallbacks;
    }

    /**
     * @return sleeps with the minimum wait ({@link RingwireIoHandlerConfig#minWaitMicros()}): 0 without it, and while
     *         the loop's completions come too rarely for a minimum to collect several of them
     */
    public long minWaits() {
        return minWaits;
    }

    /** @return handles registered with the loop right now (channels, and those whose last completions are due) */
    public int registrations() {
        return registrations;
    }

    /** @return n: SQEs per enter */
    public double sqesPerEnter() {
        return enters == 0 ? 0 : (double) sqes / enters;
    }

    /** @return CQEs per enter */
    public double cqesPerEnter() {
        return enters == 0 ? 0 : (double) cqes / enters;
    }

    /** @return mean bytes per recv */
    public double bytesPerRecv() {
        return recvs == 0 ? 0 : (double) recvBytes / recvs;
    }

    /** @return mean iovecs per write */
    public double iovecsPerWrite() {
        return writes == 0 ? 0 : (double) writeIovecs / writes;
    }

    @Override
    public String toString() {
        return String.format("%s: iterations=%d enters=%d sqes=%d (%.2f/enter) cqes=%d (%.2f/enter) recvs=%d "
                + "(%.1f B/recv) writes=%d (%.2f iovecs/write, %d B) bufferRingExhausted=%d bufferRingBuffers=%d "
                + "bufferRingShrinks=%d bufferRingReleasedBytes=%d accepts=%d acceptBackoffs=%d handlerFailures=%d "
                + "closeSubmits=%d directRecvs=%d cqOverflows=%d sendWaits=%d zeroCopySends=%d "
                + "zeroCopyCopied=%d zeroCopyRefused=%d segmentedSends=%d groBatches=%d sqRefusals=%d "
                + "dryRingFallbacks=%d minWaits=%d sendfileBytes=%d fileRegionCopiedBytes=%d fileRegionMappedBytes=%d "
                + "registrations=%d fixedFiles=%d/%d directDescriptors=%d fdInstalls=%d msgRingTransfers=%d "
                + "syncEnters=%d inlineWrites=%d", name,
            iterations, enters, sqes, sqesPerEnter(), cqes, cqesPerEnter(), recvs,
            bytesPerRecv(), writes, iovecsPerWrite(), writeBytes, bufferRingExhausted, bufferRingBuffers,
            bufferRingShrinks, bufferRingReleasedBytes, accepts, acceptBackoffs,
            handlerFailures, closeSubmits, directRecvs, cqOverflows, sendWaits, zeroCopySends, zeroCopyCopied, zeroCopyRefused,
            segmentedSends, groBatches, sqRefusals, dryRingFallbacks, minWaits, sendfileBytes, fileRegionCopiedBytes,
            fileRegionMappedBytes, registrations, fixedFiles, fixedFileSlots, directDescriptors, fdInstalls,
            msgRingTransfers, syncEnters, inlineWrites);
    }
}
