package io.ringwire.transport;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A channel's allocator for tests that must see every buffer it gave come back: direct buffers of their own, each
 * watched until released, so a leak shows as a count at once instead of when the collector finds the buffer.
 */
final class CountingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> given = new CopyOnWriteArrayList<>();

    CountingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
        given.add(b);
        return b;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** @return how many direct buffers it gave */
    int allocated() {
        return given.size();
    }

    /** @return how many of them are not released yet */
    long held() {
        return given.stream().filter(b -> b.refCnt() > 0).count();
    }

    /**
     * Waits until every buffer it gave is released, or 30 s: the count decides, the time only bounds the wait (an
     * operation the kernel still held gives its buffer back with its completion).
     *
     * @return how many are still held
     * @throws InterruptedException if interrupted while waiting
     */
    long heldAfterWaiting() throws InterruptedException {
        for (int i = 0; i < 600 && held() > 0; i++) {
            Thread.sleep(50);
        }
        return held();
    }
}
