package io.ringwire.reactor;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reactor Netty's event loops and channels on Ringwire. Reactor Netty picks Netty's io_uring, epoll, kqueue or NIO
 * by itself and refuses an event-loop group it does not know; these {@link LoopResources} give it Ringwire's loops and
 * map each Netty channel type it asks for to Ringwire's class:
 *
 * <pre>{@code
 * LoopResources loops = RingwireLoopResources.create("http", 1);
 * DisposableServer server = HttpServer.create().runOn(loops).handle(...).bindNow();
 * HttpClient client = HttpClient.create().runOn(loops);
 * }</pre>
 *
 * One group serves both the accepting channels and their connections (as Reactor Netty's own default does unless
 * it is told to select on separate threads); clients share it, a connection made from one of its threads staying
 * on that thread ({@link LoopResources#colocate}). The groups are made on first use and shut down by
 * {@link #dispose()} or {@link #disposeLater()}.
 */
public final class RingwireLoopResources implements LoopResources {
    private final String prefix;
    private final int workers;
    private final int selectors;
    private final boolean daemon;
    private final RingwireIoHandlerConfig config;
    private final AtomicBoolean disposed = new AtomicBoolean();
    private EventLoopGroup serverLoops;
    private EventLoopGroup selectLoops;
    private EventLoopGroup clientLoops;

    private RingwireLoopResources(String prefix, int workers, int selectors, boolean daemon,
                                  RingwireIoHandlerConfig config) {
        if (workers < 1 || selectors < 0) {
            throw new IllegalArgumentException("workers must be at least 1 and selectors at least 0: " + workers
                + ", " + selectors);
        }
        this.prefix = prefix;
        this.workers = workers;
        this.selectors = selectors;
        this.daemon = daemon;
        this.config = config;
    }

    /**
     * @param prefix  thread name prefix
     * @param workers event loops for connections (and accepting, and clients)
     * @return loop resources on Ringwire, daemon threads, the default Ringwire configuration
     */
    public static RingwireLoopResources create(String prefix, int workers) {
        return new RingwireLoopResources(prefix, workers, 0, true, RingwireIoHandlerConfig.builder().build());
    }

    /**
     * @param prefix    thread name prefix
     * @param workers   event loops for connections and clients
     * @param selectors event loops that only accept (0: the workers accept too)
     * @param daemon    whether the loops' threads are daemon threads
     * @param config    the Ringwire configuration of every loop
     * @return loop resources on Ringwire
     */
    public static RingwireLoopResources create(String prefix, int workers, int selectors, boolean daemon,
                                               RingwireIoHandlerConfig config) {
        return new RingwireLoopResources(prefix, workers, selectors, daemon, config);
    }

    @Override
    public synchronized EventLoopGroup onServer(boolean useNative) {
        checkNotDisposed();
        if (serverLoops == null) {
            serverLoops = newGroup(workers, prefix + "-ringwire");
        }
        return serverLoops;
    }

    @Override
    public synchronized EventLoopGroup onServerSelect(boolean useNative) {
        if (selectors == 0) {
            return onServer(useNative);
        }
        checkNotDisposed();
        if (selectLoops == null) {
            selectLoops = newGroup(selectors, prefix + "-ringwire-select");
        }
        return selectLoops;
    }

    @Override
    public synchronized EventLoopGroup onClient(boolean useNative) {
        if (clientLoops == null) {
            clientLoops = LoopResources.colocate(onServer(useNative));
        }
        return clientLoops;
    }

    @Override
    public boolean daemon() {
        return daemon;
    }

    /**
     * @return Ringwire's class for Netty's {@code channelType}: {@link SocketChannel}, {@link ServerSocketChannel},
     *         {@link DomainSocketChannel}, {@link ServerDomainSocketChannel}, {@link DatagramChannel} (Reactor
     *         Netty's DNS resolver uses it) and {@link DomainDatagramChannel}
     * @throws IllegalArgumentException for any other type, naming it
     */
    @Override
    @SuppressWarnings("unchecked")
    public <CHANNEL extends Channel> Class<? extends CHANNEL> onChannelClass(Class<CHANNEL> channelType,
                                                                            EventLoopGroup group) {
        Class<? extends Channel> c;
        if (channelType == SocketChannel.class) {
            c = RingwireSocketChannel.class;
        } else if (channelType == ServerSocketChannel.class) {
            c = RingwireServerSocketChannel.class;
        } else if (channelType == DomainSocketChannel.class) {
            c = RingwireDomainSocketChannel.class;
        } else if (channelType == ServerDomainSocketChannel.class) {
            c = RingwireServerDomainSocketChannel.class;
        } else if (channelType == DatagramChannel.class) {
            c = RingwireDatagramChannel.class;
        } else if (channelType == DomainDatagramChannel.class) {
            c = RingwireDomainDatagramChannel.class;
        } else {
            throw new IllegalArgumentException("Ringwire has no channel for " + channelType.getName() + " (it has "
                + "SocketChannel, ServerSocketChannel, DomainSocketChannel, ServerDomainSocketChannel, "
                + "DatagramChannel and DomainDatagramChannel)");
        }
        return (Class<? extends CHANNEL>) c;
    }

    @Override
    public <CHANNEL extends Channel> CHANNEL onChannel(Class<CHANNEL> channelType, EventLoopGroup group) {
        Class<? extends CHANNEL> c = onChannelClass(channelType, group);
        try {
            return c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make a " + c.getName(), e);
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    @Override
    public void dispose() {
        disposeLater().subscribe();
    }

    @Override
    public Mono<Void> disposeLater(Duration quietPeriod, Duration timeout) {
        return Mono.defer(() -> {
            List<Future<?>> terminations = new ArrayList<>();
            synchronized (this) {
                if (!disposed.compareAndSet(false, true)) {
                    return Mono.empty();
                }
                for (EventLoopGroup g : new EventLoopGroup[] {selectLoops, serverLoops}) {
                    if (g != null) {
                        terminations.add(g.shutdownGracefully(quietPeriod.toNanos(), timeout.toNanos(),
                            TimeUnit.NANOSECONDS));
                    }
                }
            }
            Mono<Void> all = Mono.empty();
            for (Future<?> f : terminations) {
                all = all.then(Mono.<Void>create(sink -> f.addListener(done -> {
                    if (done.isSuccess()) {
                        sink.success();
                    } else {
                        sink.error(done.cause());
                    }
                })));
            }
            return all;
        });
    }

    private EventLoopGroup newGroup(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, daemon),
            RingwireIoHandler.newFactory(config));
    }

    private void checkNotDisposed() {
        if (disposed.get()) {
            throw new IllegalStateException("these loop resources are disposed: " + prefix);
        }
    }

    @Override
    public String toString() {
        return "RingwireLoopResources[" + prefix + ", workers=" + workers + ", selectors=" + selectors + "]";
    }
}
