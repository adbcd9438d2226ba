package io.ringwire.lettuce;

import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.ringwire.transport.RingwireIoHandler;

import java.util.concurrent.TimeUnit;

/**
 * Lettuce's event-loop-group provider on Ringwire: a client of {@link RingwireLettuce}'s, whatever group class Lettuce
 * asks for on its behalf (it names NIO's, epoll's or io_uring's, whichever its own transport choice found), gets one
 * shared group of Ringwire event loops, counted by reference as Lettuce's default provider counts its groups: each
 * client that allocates it releases it when it shuts down, and the last release (or {@link #shutdown}) shuts the loops
 * down.
 *
 * <p>Any other client on the same resources (Lettuce's own, {@code RedisClient.create(resources, uri)}) opens a channel
 * of Lettuce's own transport, which Ringwire's loops refuse to register ("incompatible event loop type"), and no
 * extension point of Lettuce's lets the resources change that channel class: such a client gets the group class it
 * asks for from Lettuce's own provider ({@link DefaultEventLoopGroupProvider}, made on first use, as many threads), so
 * that it runs on Lettuce's transport beside Ringwire's clients instead of failing to connect. Lettuce asks for a
 * client's group while it configures the connection's bootstrap, on the thread that connects: RingwireLettuce's
 * clients do that inside {@link #forRingwire}.
 */
final class RingwireEventLoopGroupProvider implements EventLoopGroupProvider {
    /** Set while a client of RingwireLettuce's configures a connection: the group it asks for is Ringwire's. */
    private static final ThreadLocal<Boolean> RINGWIRE_CLIENT = new ThreadLocal<>();

    private final int threads;
    private EventLoopGroup group;
    private int references;
    /** Lettuce's own groups, for the clients that are not RingwireLettuce's; null until one asks. */
    private DefaultEventLoopGroupProvider lettuces;

    RingwireEventLoopGroupProvider(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: > 0)");
        }
        this.threads = threads;
    }

    /**
     * Runs {@code configure} (a RingwireLettuce client's configuration of a connection) with every group it allocates
     * from a provider of this class being Ringwire's.
     */
    static void forRingwire(Runnable configure) {
        Boolean outer = RINGWIRE_CLIENT.get();
        RINGWIRE_CLIENT.set(Boolean.TRUE);
        try {
            configure.run();
        } finally {
            if (outer == null) {
                RINGWIRE_CLIENT.remove();
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
        if (RINGWIRE_CLIENT.get() == null) {
            return lettuces().allocate(type); // Lettuce's own client: its own transport's loops
        }
        synchronized (this) {
            if (group == null) {
                group = new MultiThreadIoEventLoopGroup(threads,
                    new DefaultThreadFactory("lettuce-ringwireEventLoop", true), RingwireIoHandler.newFactory());
            }
            references++;
            // Lettuce keeps the group as an EventLoopGroup and hands it to the bootstrap, whose channel class
            // RingwireLettuce's clients set to Ringwire's: the requested class itself is never used
            return (T) group;
        }
    }

    private synchronized DefaultEventLoopGroupProvider lettuces() {
        if (lettuces == null) {
            lettuces = new DefaultEventLoopGroupProvider(threads);
        }
        return lettuces;
    }

    /** @return whether {@code loop} is one of this provider's Ringwire loops (not one of Lettuce's own) */
    synchronized boolean isRingwire(EventExecutor loop) {
        return group != null && loop.parent() == group;
    }

    @Override
    public int threadPoolSize() {
        return threads;
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
        DefaultEventLoopGroupProvider own;
        synchronized (this) {
            own = lettuces;
            if (eventLoopGroup == group) {
                if (--references > 0) {
                    return succeeded();
                }
                group = null;
                own = null;
            }
        }
        if (own != null) {
            return own.release(eventLoopGroup, quietPeriod, timeout, unit); // Lettuce's own group, counted there
        }
        // the last reference to Ringwire's group; or a group not (or no longer) this provider's, which Lettuce's own
        // provider shuts down too
        return toBooleanFuture(eventLoopGroup.shutdownGracefully(quietPeriod, timeout, unit));
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        EventLoopGroup loops;
        DefaultEventLoopGroupProvider own;
        synchronized (this) {
            loops = group;
            group = null;
            references = 0;
            own = lettuces;
            lettuces = null;
        }
        Future<Boolean> ringwire = loops == null ? succeeded()
            : toBooleanFuture(loops.shutdownGracefully(quietPeriod, timeout, timeUnit));
        if (own == null) {
            return ringwire;
        }
        Future<Boolean> lettuce = own.shutdown(quietPeriod, timeout, timeUnit);
        Promise<Boolean> both = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
        ringwire.addListener(r -> lettuce.addListener(l -> {
            if (!r.isSuccess()) {
                both.setFailure(r.cause());
            } else if (!l.isSuccess()) {
                both.setFailure(l.cause());
            } else {
                both.setSuccess(true);
            }
        }));
        return both;
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
