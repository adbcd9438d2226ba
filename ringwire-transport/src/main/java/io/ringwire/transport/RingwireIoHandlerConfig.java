package io.ringwire.transport;

import io.netty.util.internal.SystemPropertyUtil;

/**
 * Settings of a {@link RingwireIoHandler}, one ring per event loop. Build with {@link #builder()}; the defaults suit
 * a server with a few thousand connections per loop, and each can be changed without code with a system property
 * named after it: {@code -Dringwire.ringEntries}, {@code ringwire.cqEntries}, {@code ringwire.bufferRingEntries},
 * {@code ringwire.bufferSize}, {@code ringwire.iovecCapacity}, {@code ringwire.maxBytesPerWrite},
 * {@code ringwire.deferTaskrun}, {@code ringwire.registerRingFd}.
 *
 * @param ringEntries        SQ size
 * @param cqEntries          CQ size; multishot requests post many CQEs per SQE, so keep it several times the SQ
 * @param bufferRingEntries  provided buffers for receiving (a power of two)
 * @param bufferSize         bytes per provided buffer
 * @param iovecCapacity      iovecs the loop can hand to writes in one iteration
 * @param maxBytesPerWrite   cap on the bytes one write SQE carries (outbound bytes in flight per channel)
 * @param deferTaskrun       ask for SINGLE_ISSUER + DEFER_TASKRUN (falls back to COOP_TASKRUN)
 * @param registerRingFd     register the ring fd with the loop thread
 */
public record RingwireIoHandlerConfig(int ringEntries, int cqEntries, int bufferRingEntries, int bufferSize,
                                      int iovecCapacity, int maxBytesPerWrite, boolean deferTaskrun,
                                      boolean registerRingFd) {
    public RingwireIoHandlerConfig {
        positive("ringEntries", ringEntries);
        positive("cqEntries", cqEntries);
        positive("bufferSize", bufferSize);
        positive("iovecCapacity", iovecCapacity);
        positive("maxBytesPerWrite", maxBytesPerWrite);
        if (Integer.bitCount(bufferRingEntries) != 1 || bufferRingEntries > 32768) {
            throw new IllegalArgumentException("bufferRingEntries must be a power of two up to 32768: "
                + "bufferRingEntries=" + bufferRingEntries);
        }
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
        private int bufferRingEntries = SystemPropertyUtil.getInt("ringwire.bufferRingEntries", 1024);
        private int bufferSize = SystemPropertyUtil.getInt("ringwire.bufferSize", 8192);
        private int iovecCapacity = SystemPropertyUtil.getInt("ringwire.iovecCapacity", 8192);
        private int maxBytesPerWrite = SystemPropertyUtil.getInt("ringwire.maxBytesPerWrite", 1024 * 1024);
        private boolean deferTaskrun = SystemPropertyUtil.getBoolean("ringwire.deferTaskrun", true);
        private boolean registerRingFd = SystemPropertyUtil.getBoolean("ringwire.registerRingFd", true);

        private Builder() { }

        /** @param v SQ size @return this */
        public Builder ringEntries(int v) {
            ringEntries = v;
            return this;
        }

        /** @param v CQ size @return this */
        public Builder cqEntries(int v) {
            cqEntries = v;
            return this;
        }

        /** @param v provided buffers (power of two) @return this */
        public Builder bufferRingEntries(int v) {
            bufferRingEntries = v;
            return this;
        }

        /** @param v bytes per provided buffer @return this */
        public Builder bufferSize(int v) {
            bufferSize = v;
            return this;
        }

        /** @param v iovecs per iteration @return this */
        public Builder iovecCapacity(int v) {
            iovecCapacity = v;
            return this;
        }

        /** @param v cap on bytes per write SQE @return this */
        public Builder maxBytesPerWrite(int v) {
            maxBytesPerWrite = v;
            return this;
        }

        /** @param v whether to ask for DEFER_TASKRUN @return this */
        public Builder deferTaskrun(boolean v) {
            deferTaskrun = v;
            return this;
        }

        /** @param v whether to register the ring fd @return this */
        public Builder registerRingFd(boolean v) {
            registerRingFd = v;
            return this;
        }

        /** @return the config */
        public RingwireIoHandlerConfig build() {
            return new RingwireIoHandlerConfig(ringEntries, cqEntries, bufferRingEntries, bufferSize, iovecCapacity,
                maxBytesPerWrite, deferTaskrun, registerRingFd);
        }
    }
}
