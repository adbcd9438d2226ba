package io.ringwire.spring.boot;

import io.ringwire.transport.RingwireIoHandlerConfig;
import org.springframework.boot.context.properties.ConfigurationProperties;
import reactor.netty.resources.LoopResources;

/**
 * Ringwire's settings as Spring Boot configuration properties, under {@code ringwire.}: whether the application runs
 * on Ringwire, how many event loops it has, and each setting of {@link RingwireIoHandlerConfig} (one ring per loop).
 * The names are those of Ringwire's own system properties ({@code -Dringwire.ringEntries=8192} and
 * {@code ringwire.ring-entries=8192} in {@code application.properties} mean the same), and the defaults are
 * Ringwire's.
 */
@ConfigurationProperties("ringwire")
public class RingwireProperties {
    /**
     * Whether Spring Boot's reactive web server and its Reactor Netty clients run on Ringwire, and Spring Data Redis's
     * Lettuce connections with ringwire-lettuce on the class path. Off, they run on Netty's default transport and
     * Lettuce's, as without Ringwire on the class path. (The system property ringwire.disable=true turns Ringwire off
     * for the whole JVM.)
     */
    private boolean enabled = true;

    /**
     * Event loops (threads) serving the web server's connections and the clients'; by default Reactor Netty's
     * number: reactor.netty.ioWorkerCount, or the CPUs available, at least 4.
     */
    private Integer loops;

    /** Submission queue entries of each loop's ring. */
    private int ringEntries = 4096;

    /** Completion queue entries of each loop's ring; keep it several times the submission queue. */
    private int cqEntries = 16384;

    /**
     * Receive buffers of each loop's provided buffer ring, a power of two up to 32768, at most (the ring starts with
     * initial-buffer-ring-entries and doubles when it runs dry); 0 for the default: 1024, or 64 with incremental
     * buffers.
     */
    private int bufferRingEntries = 0;

    /** Receive buffers the ring starts with; 0 for the default, 64. */
    private int initialBufferRingEntries = 0;

    /** Bytes per receive buffer; 0 for the default: 8 KiB, or 64 KiB with incremental buffers. */
    private int bufferSize = 0;

    /**
     * Whether receive buffers are consumed incrementally (IOU_PBUF_RING_INC, Linux 6.12) where the kernel can.
     * Experimental.
     */
    private boolean incrementalBuffers = false;

    /** Iovecs a loop can hand to writes in one iteration. */
    private int iovecCapacity = 8192;

    /** Most bytes one write carries (a channel's outbound bytes in flight). */
    private int maxBytesPerWrite = 1048576; // 1 MiB

    /** Whether the ring asks for DEFER_TASKRUN (Linux 6.1; needs single-issuer, else COOP_TASKRUN). */
    private boolean deferTaskrun = true;

    /** Whether the ring's file descriptor is registered with its loop's thread. */
    private boolean registerRingFd = true;

    /** Whether bulk streams may receive straight into the allocator's buffers instead of the shared ring's. */
    private boolean directReceive = true;

    /** Whether the ring asks for SINGLE_ISSUER (Linux 6.0): only the loop's thread submits. */
    private boolean singleIssuer = true;

    /** Whether the ring asks for NO_SQARRAY (Linux 6.6). */
    private boolean noSqArray = true;

    /** Whether each connection receives with one multishot RECV (Linux 6.0) rather than one RECV at a time. */
    private boolean multishotRecv = true;

    /** Whether connections receive into the loop's shared provided buffer ring (Linux 5.19). */
    private boolean bufferRing = true;

    /** Slots of each loop's fixed-file table (at most the open-file soft limit); 0 for none. */
    private int fixedFiles = 16384;

    /**
     * Whether stream connections live only in the loops' fixed-file tables (direct descriptors, Linux 6.8) and hold no
     * file descriptor: each loop then holds as many connections as the open-file limit.
     */
    private boolean directDescriptors = false;

    /**
     * Microseconds an idle loop, once asleep, lets completions gather before it wakes (Linux 6.12); 0 for none.
     * Fewer wake-ups at a moderate load, for up to this much latency on each message.
     */
    private int minWaitMicros = 0;

    /**
     * How often, in milliseconds, a receive buffer ring that grew looks at what it needed and gives back what it
     * did not; 0: it never shrinks.
     */
    private int bufferRingShrinkMillis = 10_000;

    /** @return the settings of each loop's ring, as Ringwire's transport takes them */
    public RingwireIoHandlerConfig ioHandlerConfig() {
        return RingwireIoHandlerConfig.builder()
            .ringEntries(ringEntries)
            .cqEntries(cqEntries)
            .bufferRingEntries(bufferRingEntries)
            .initialBufferRingEntries(initialBufferRingEntries)
            .bufferSize(bufferSize)
            .incrementalBuffers(incrementalBuffers)
            .iovecCapacity(iovecCapacity)
            .maxBytesPerWrite(maxBytesPerWrite)
            .deferTaskrun(deferTaskrun)
            .registerRingFd(registerRingFd)
            .directReceive(directReceive)
            .singleIssuer(singleIssuer)
            .noSqArray(noSqArray)
            .multishotRecv(multishotRecv)
            .bufferRing(bufferRing)
            .fixedFiles(fixedFiles)
            .directDescriptors(directDescriptors)
            .minWaitMicros(minWaitMicros)
            .bufferRingShrinkMillis(bufferRingShrinkMillis)
            .build();
    }

    /** @return the event loops to run: the setting, or Reactor Netty's default */
    public int loopCount() {
        return loops != null ? loops : LoopResources.DEFAULT_IO_WORKER_COUNT;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Integer getLoops() {
        return loops;
    }

    public void setLoops(Integer loops) {
        if (loops != null && loops < 1) {
            throw new IllegalArgumentException("ringwire.loops must be at least 1: " + loops);
        }
        this.loops = loops;
    }

    public int getRingEntries() {
        return ringEntries;
    }

    public void setRingEntries(int ringEntries) {
        this.ringEntries = ringEntries;
    }

    public int getCqEntries() {
        return cqEntries;
    }

    public void setCqEntries(int cqEntries) {
        this.cqEntries = cqEntries;
    }

    public int getBufferRingEntries() {
        return bufferRingEntries;
    }

    public void setBufferRingEntries(int bufferRingEntries) {
        this.bufferRingEntries = bufferRingEntries;
    }

    public int getInitialBufferRingEntries() {
        return initialBufferRingEntries;
    }

    public void setInitialBufferRingEntries(int initialBufferRingEntries) {
        this.initialBufferRingEntries = initialBufferRingEntries;
    }

    public int getBufferSize() {
        return bufferSize;
    }

    public void setBufferSize(int bufferSize) {
        this.bufferSize = bufferSize;
    }

    public boolean isIncrementalBuffers() {
        return incrementalBuffers;
    }

    public void setIncrementalBuffers(boolean incrementalBuffers) {
        this.incrementalBuffers = incrementalBuffers;
    }

    public int getIovecCapacity() {
        return iovecCapacity;
    }

    public void setIovecCapacity(int iovecCapacity) {
        this.iovecCapacity = iovecCapacity;
    }

    public int getMaxBytesPerWrite() {
        return maxBytesPerWrite;
    }

    public void setMaxBytesPerWrite(int maxBytesPerWrite) {
        this.maxBytesPerWrite = maxBytesPerWrite;
    }

    public boolean isDeferTaskrun() {
        return deferTaskrun;
    }

    public void setDeferTaskrun(boolean deferTaskrun) {
        this.deferTaskrun = deferTaskrun;
    }

    public boolean isRegisterRingFd() {
        return registerRingFd;
    }

    public void setRegisterRingFd(boolean registerRingFd) {
        this.registerRingFd = registerRingFd;
    }

    public boolean isDirectReceive() {
        return directReceive;
    }

    public void setDirectReceive(boolean directReceive) {
        this.directReceive = directReceive;
    }

    public boolean isSingleIssuer() {
        return singleIssuer;
    }

    public void setSingleIssuer(boolean singleIssuer) {
        this.singleIssuer = singleIssuer;
    }

    public boolean isNoSqArray() {
        return noSqArray;
    }

    public void setNoSqArray(boolean noSqArray) {
        this.noSqArray = noSqArray;
    }

    public boolean isMultishotRecv() {
        return multishotRecv;
    }

    public void setMultishotRecv(boolean multishotRecv) {
        this.multishotRecv = multishotRecv;
    }

    public boolean isBufferRing() {
        return bufferRing;
    }

    public void setBufferRing(boolean bufferRing) {
        this.bufferRing = bufferRing;
    }

    public int getFixedFiles() {
        return fixedFiles;
    }

    public void setFixedFiles(int fixedFiles) {
        this.fixedFiles = fixedFiles;
    }

    public boolean isDirectDescriptors() {
        return directDescriptors;
    }

    public void setDirectDescriptors(boolean directDescriptors) {
        this.directDescriptors = directDescriptors;
    }

    public int getMinWaitMicros() {
        return minWaitMicros;
    }

    public void setMinWaitMicros(int minWaitMicros) {
        this.minWaitMicros = minWaitMicros;
    }

    public int getBufferRingShrinkMillis() {
        return bufferRingShrinkMillis;
    }

    public void setBufferRingShrinkMillis(int bufferRingShrinkMillis) {
        this.bufferRingShrinkMillis = bufferRingShrinkMillis;
    }
}
