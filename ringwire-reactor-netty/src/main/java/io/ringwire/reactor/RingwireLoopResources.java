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
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireIoHandlerConfig;
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
 * map each Netty channel type it asks for to Ringwire's class. Where Ringwire cannot run they give it the next best
 * transport instead, as {@link Ringwire#bestTransport()} chooses it (Netty's epoll when
 * {@code netty-transport-native-epoll} is on the class path, else NIO; logged once, with the reason), so an
 * application starts everywhere; {@link #transport()} says which:
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
 * {@link #dispose()} or {@link #disposeLater()}. The threads are named {@code prefix-ringwire-N-M} (or
 * {@code -epoll-}, {@code -nio-}).
 */
public final class RingwireLoopResources implements LoopResources {
    private final String prefix;
    private final int workers;
    private final int selectors;
    private final boolean daemon;
    private final RingwireIoHandlerConfig config;
    private final BestTransport transport = Ringwire.bestTransport();
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
     * @return loop resources on Ringwire (or the best transport available), daemon threads, the default Ringwire
     *         configuration
     */
    public static RingwireLoopResources create(String prefix, int workers) {
        return new RingwireLoopResources(prefix, workers, 0, true, RingwireIoHandlerConfig.builder().build());
    }

    /**
     * @param prefix    thread name prefix
     * @param workers   event loops for connections and clients
     * @param selectors event loops that only accept (0: the workers accept too)
     * @param daemon    whether the loops' threads are daemon threads
     * @param config    the Ringwire configuration of every loop (unused where Ringwire cannot run)
     * @return loop resources on Ringwire, or the best transport available
     */
    public static RingwireLoopResources create(String prefix, int workers, int selectors, boolean daemon,
                                               RingwireIoHandlerConfig config) {
        return new RingwireLoopResources(prefix, workers, selectors, daemon, config);
    }

    @Override
    public synchronized EventLoopGroup onServer(boolean useNative) {
        checkNotDisposed();
        if (serverLoops == null) {
            serverLoops = newGroup(workers, prefix + "-" + transportName());
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
            selectLoops = newGroup(selectors, prefix + "-" + transportName() + "-select");
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
     * @return the transport these loops run on: {@link Ringwire#bestTransport()}
     */
    public BestTransport transport() {
        return transport;
    }

    /**
     * @return the transport's class for Netty's {@code channelType}: {@link SocketChannel},
     *         {@link ServerSocketChannel}, {@link DomainSocketChannel}, {@link ServerDomainSocketChannel},
     *         {@link DatagramChannel} (Reactor Netty's DNS resolver uses it) and {@link DomainDatagramChannel}
     *         (Ringwire's classes, or epoll's or NIO's where Ringwire cannot run)
     * @throws IllegalArgumentException for any other type, naming it, and for the domain socket types on NIO,
     *                                  which has no such channels
     */
    @Override
    @SuppressWarnings("unchecked")
    public <CHANNEL extends Channel> Class<? extends CHANNEL> onChannelClass(Class<CHANNEL> channelType,
                                                                            EventLoopGroup group) {
        Class<? extends Channel> c;
        if (channelType == SocketChannel.class) {
            c = transport.socketChannelClass();
        } else if (channelType == ServerSocketChannel.class) {
            c = transport.serverSocketChannelClass();
        } else if (channelType == DomainSocketChannel.class) {
            c = transport.domainSocketChannelClass();
        } else if (channelType == ServerDomainSocketChannel.class) {
            c = transport.serverDomainSocketChannelClass();
        } else if (channelType == DatagramChannel.class) {
            c = transport.datagramChannelClass();
        } else if (channelType == DomainDatagramChannel.class) {
            c = transport.domainDatagramChannelClass();
        } else {
            throw new IllegalArgumentException("Ringwire has no channel for " + channelType.getName() + " (it has "
                + "SocketChannel, ServerSocketChannel, DomainSocketChannel, ServerDomainSocketChannel, "
                + "DatagramChannel and DomainDatagramChannel)");
        }
        if (c == null) {
            throw new IllegalArgumentException(transport.kind() + " has no channel for " + channelType.getName()
                + " (" + transport.reason() + ")");
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
            transport.ioHandlerFactory(config));
    }

    private String transportName() {
        return transport.kind().name().toLowerCase(java.util.Locale.ROOT);
    }

    private void checkNotDisposed() {
        if (disposed.get()) {
            throw new IllegalStateException("these loop resources are disposed: " + prefix);
        }
    }

    @Override
    public String toString() {
        return "RingwireLoopResources[" + prefix + ", " + transportName() + ", workers=" + workers + ", selectors="
            + selectors + "]";
    }
}
