package io.ringwire.transport;

/**
 * One Ringwire event loop's counters ({@link RingwireCounters}) as a platform MXBean, for JConsole, JDK Mission
 * Control, VisualVM or a JMX exporter. Registered while the loop runs when the JVM is started with
 * {@code -Dringwire.jmx=true}, as {@code io.ringwire:type=EventLoop,name="<the loop's thread name>"}.
 */
public interface RingwireLoopMXBean {
    /** @return the loop's thread name */
    String getName();

    /** @return event-loop iterations */
    long getIterations();

    /** @return io_uring_enter calls */
    long getEnters();

    /** @return SQEs submitted */
    long getSqes();

    /** @return CQEs reaped */
    long getCqes();

    /** @return SQEs per enter: n, the batch per system call of {@link RingwireCounters#sqesPerEnter()}'s cost model */
    double getSqesPerEnter();

    /** @return CQEs per enter */
    double getCqesPerEnter();

    /** @return receive completions that carried bytes */
    long getRecvs();

    /** @return bytes received */
    long getRecvBytes();

    /** @return mean bytes per receive */
    double getBytesPerRecv();

    /** @return receives straight into the allocator's buffers (bulk streams) */
    long getDirectRecvs();

    /** @return write submissions (SEND, SENDMSG, ...) */
    long getWrites();

    /** @return bytes written */
    long getWriteBytes();

    /** @return iovecs handed to the writes */
    long getWriteIovecs();

    /** @return mean iovecs per write */
    double getIovecsPerWrite();

    /** @return receives armed into a buffer of the connection's own because its last one found the ring empty */
    long getDryRingFallbacks();

    /** @return extra enters made so that no queued SQE outlives the descriptor number it names */
    long getCloseSubmits();

    /** @return times a datagram channel's sends stopped at a full peer and waited for room */
    long getSendWaits();

    /** @return zero-copy sends whose notification said the kernel copied after all */
    long getZeroCopyCopied();

    /** @return zero-copy sends the kernel refused, sent again with a copy */
    long getZeroCopyRefused();

    /** @return datagram sends the kernel cut into segments (UDP GSO) */
    long getSegmentedSends();

    /** @return receives that brought several datagrams of one sender at once (UDP_GRO) */
    long getGroBatches();

    /** @return bytes of FileRegions sent with sendfile(2) */
    long getSendfileBytes();

    /** @return bytes of FileRegions mapped into memory and sent from the mapping */
    long getFileRegionMappedBytes();

    /** @return bytes of FileRegions copied out through their transferTo and sent from a buffer */
    long getFileRegionCopiedBytes();

    /** @return receives that found the provided-buffer ring empty (ENOBUFS) */
    long getBufferRingExhausted();

    /** @return buffers in the provided-buffer ring now */
    int getBufferRingBuffers();

    /** @return times the provided-buffer ring began shrinking after a burst */
    long getBufferRingShrinks();

    /** @return bytes of receive-buffer pages the shrinks gave back to the system */
    long getBufferRingReleasedBytes();

    /** @return connections accepted */
    long getAccepts();

    /** @return accepts paused for lack of descriptors (EMFILE, ENFILE) */
    long getAcceptBackoffs();

    /** @return exceptions and errors that handlers (or the logger) threw into the loop, which it survived */
    long getHandlerFailures();

    /** @return times the CQ overflowed into the kernel's list */
    long getCqOverflows();

    /** @return SQEs the kernel refused for the moment (retried the next iteration) */
    long getSqRefusals();

    /** @return handles registered with the loop now */
    int getRegistrations();

    /** @return descriptors in the registered file table now */
    int getFixedFiles();

    /** @return slots of the registered file table */
    int getFixedFileSlots();

    /** @return connections on direct descriptors registered with the loop now (no file descriptor each) */
    int getDirectDescriptors();

    /** @return file descriptors installed for a call that needed one (and closed right after) */
    long getFdInstalls();

    /** @return direct descriptors this loop moved to another loop's table (MSG_RING) */
    long getMsgRingTransfers();

    /** @return enters made to complete a synchronous call on a direct descriptor (socket options, addresses) */
    long getSyncEnters();

    /** @return writes a bulk stream made at once with sendmsg(2) when its read loop ended (also in writes) */
    long getInlineWrites();

    /** @return zero-copy sends */
    long getZeroCopySends();

    /** @return waits with a minimum (minWaitMicros) */
    long getMinWaits();

    /** @return every counter on one line, as {@link RingwireCounters#toString()} */
    String getSummary();
}
