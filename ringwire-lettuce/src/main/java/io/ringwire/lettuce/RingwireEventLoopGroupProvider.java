package io.ringwire.lettuce;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.ringwire.transport.RingwireIoHandler;

import java.util.concurrent.TimeUnit;

/**
 * Lettuce's event-loop-group provider on Ringwire: whatever group class Lettuce asks for (it names NIO's, epoll's or
 * io_uring's, whichever its own transport choice found), it gets one shared group of Ringwire event loops, counted by
 * reference as Lettuce's default provider counts its groups: each client that allocates it releases it when it shuts
 * down, and the last release (or {@link #shutdown}) shuts the loops down.
 */
final class RingwireEventLoopGroupProvider implements EventLoopGroupProvider {
    private final int threads;
    private EventLoopGroup group;
    private int references;

    RingwireEventLoopGroupProvider(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: > 0)");
        }
        this.threads = threads;
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized <T extends EventLoopGroup> T allocate(Class<T> type) {
        if (group == null) {
            group = new MultiThreadIoEventLoopGroup(threads,
                new DefaultThreadFactory("lettuce-ringwireEventLoop", true), RingwireIoHandler.newFactory());
        }
        references++;
        // Lettuce keeps the group as an EventLoopGroup and hands it to the bootstrap, whose channel class
        // RingwireLettuce's NettyCustomizer sets to Ringwire's: the requested class itself is never used
        return (T) group;
    }

    @Override
    public int threadPoolSize() {
        return threads;
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
        synchronized (this) {
            if (eventLoopGroup != group) {
                // not (or no longer) this provider's: Lettuce's own provider shuts such a group down too
                return toBooleanFuture(eventLoopGroup.shutdownGracefully(quietPeriod, timeout, unit));
            }
            if (--references > 0) {
                return succeeded();
            }
            group = null;
        }
        return toBooleanFuture(eventLoopGroup.shutdownGracefully(quietPeriod, timeout, unit));
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        EventLoopGroup loops;
        synchronized (this) {
            loops = group;
            group = null;
            references = 0;
        }
        return loops == null ? succeeded() : toBooleanFuture(loops.shutdownGracefully(quietPeriod, timeout, timeUnit));
    }

    private static Future<Boolean> succeeded() {
        return GlobalEventExecutor.INSTANCE.newSucceededFuture(true);
    }

    private static Future<Boolean> toBooleanFuture(Future<?> future) {
        Promise<Boolean> result = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
        future.addListener(f -> {
            if (f.isSuccess()) {
                result.setSuccess(true);
            } else {
                result.setFailure(f.cause());
            }
        });
        return result;
    }
}
