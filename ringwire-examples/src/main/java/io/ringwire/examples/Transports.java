package io.ringwire.examples;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The one place the examples pick a transport: the same server program runs on Ringwire or on one of Netty's own
 * transports, and only the IoHandler factory and the server channel class change.
 */
public final class Transports {
    /** The transport names every example accepts. */
    public static final List<String> NAMES = List.of("ringwire", "netty-epoll", "netty-io_uring", "netty-nio");

    /** What one transport brings: its IoHandler factory and its channel classes. */
    private record Kind(Supplier<IoHandlerFactory> factory, Class<? extends ServerChannel> serverSocket,
                        Class<? extends ServerChannel> serverDomainSocket, Class<? extends Channel> datagram) { }

    private static final Map<String, Kind> KINDS = Map.of(
        "ringwire", new Kind(RingwireIoHandler::newFactory, RingwireServerSocketChannel.class,
            RingwireServerDomainSocketChannel.class, RingwireDatagramChannel.class),
        "netty-epoll", new Kind(EpollIoHandler::newFactory, EpollServerSocketChannel.class,
            EpollServerDomainSocketChannel.class, EpollDatagramChannel.class),
        "netty-io_uring", new Kind(IoUringIoHandler::newFactory, IoUringServerSocketChannel.class,
            IoUringServerDomainSocketChannel.class, IoUringDatagramChannel.class),
        "netty-nio", new Kind(NioIoHandler::newFactory, NioServerSocketChannel.class,
            NioServerDomainSocketChannel.class, NioDatagramChannel.class));

    private static Kind kind(String transport) {
        Kind k = KINDS.get(transport);
        if (k == null) {
            throw new IllegalArgumentException("unknown transport '" + transport + "': use one of " + NAMES);
        }
        return k;
    }

    private Transports() { }

    /** The group the servers started inside {@link #onGroup} bind on, instead of a group of their own. */
    private static final ThreadLocal<EventLoopGroup> SHARED = new ThreadLocal<>();

    /**
     * @param transport one of {@link #NAMES}
     * @param threads   event-loop threads
     * @return a new event-loop group of that transport
     */
    public static EventLoopGroup newGroup(String transport, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, kind(transport).factory().get());
    }

    /**
     * Runs {@code start} with every server it starts through this class bound on {@code group} instead of a group of
     * its own: several example servers on the same event loops, as an application serving several protocols runs
     * them (the lab's soak). The group belongs to the caller, who shuts it down.
     *
     * @param group the loops to share; of the transport {@code start} names
     * @param start starts the servers
     * @param <T>   what it returns
     * @return what {@code start} returned
     * @throws InterruptedException if interrupted while binding
     */
    public static <T> T onGroup(EventLoopGroup group, SharedStart<T> start) throws InterruptedException {
        SHARED.set(group);
        try {
            return start.start();
        } finally {
            SHARED.remove();
        }
    }

    /** What {@link #onGroup} runs. */
    @FunctionalInterface
    public interface SharedStart<T> {
        /**
         * @return anything
         * @throws InterruptedException if interrupted while binding
         */
        T start() throws InterruptedException;
    }

    /** @return the shared group inside {@link #onGroup}, else a new one of {@code threads} loops */
    private static EventLoopGroup groupFor(int threads, IoHandlerFactory factory) {
        EventLoopGroup shared = SHARED.get();
        return shared != null ? shared : new MultiThreadIoEventLoopGroup(threads, factory);
    }

    /** Shuts a group down after a failed bind, unless it is the caller's ({@link #onGroup}). */
    private static void shutDownOwn(EventLoopGroup group) {
        if (group != SHARED.get()) {
            group.shutdownGracefully();
        }
    }

    /** Starts one of the example servers. */
    @FunctionalInterface
    public interface Starter {
        /**
         * @param transport one of {@link #NAMES}
         * @param address   where to listen
         * @param threads   event-loop threads
         * @return the bound server channel
         * @throws InterruptedException if interrupted while binding
         */
        Channel start(String transport, InetSocketAddress address, int threads) throws InterruptedException;
    }

    /**
     * The examples' {@code main}: {@code [port] [threads] [transport]} on 127.0.0.1, serve until the process ends,
     * and print the Ringwire loops' counters (enters, SQEs and CQEs per enter, bytes per recv, ...) on the way out.
     *
     * @param args        the command line
     * @param defaultPort the port without one
     * @param what        the server's name, for the first line it prints
     * @param starter     starts it
     * @throws InterruptedException if interrupted while serving
     */
    public static void serve(String[] args, int defaultPort, String what, Starter starter)
        throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : defaultPort;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        String transport = args.length > 2 ? args[2] : "ringwire";
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (RingwireCounters c : RingwireCounters.all()) {
                System.out.println(c);
            }
        }));
        Channel server = starter.start(transport, new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            threads);
        try {
            System.out.println(what + " on " + server.localAddress() + " (" + transport + ", " + threads
                + " thread" + (threads == 1 ? "" : "s") + ")");
            server.closeFuture().sync();
        } finally {
            server.eventLoop().parent().shutdownGracefully();
        }
    }

    /**
     * Starts a Unix domain stream server at {@code path} (a stale socket file there is removed first).
     *
     * @param transport    one of {@link #NAMES}
     * @param path         the socket file
     * @param threads      event-loop threads
     * @param childHandler each accepted channel's handler
     * @return the bound server channel; its event loop's parent is the group to shut down
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel startDomainServer(String transport, java.nio.file.Path path, int threads,
                                            ChannelHandler childHandler) throws InterruptedException {
        Kind k = kind(transport);
        java.net.SocketAddress address = "netty-nio".equals(transport)
            ? java.net.UnixDomainSocketAddress.of(path) // NIO's takes the JDK's address type
            : new io.netty.channel.unix.DomainSocketAddress(path.toFile());
        try {
            java.nio.file.Files.deleteIfExists(path);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bindServer(new ServerBootstrap(), threads, k.factory().get(), k.serverDomainSocket(), address,
            childHandler);
    }

    /**
     * Binds a UDP socket on one event loop (a datagram channel is served by one loop; {@code threads} does not
     * apply).
     *
     * @param transport one of {@link #NAMES}
     * @param address   where to bind
     * @param handler   the channel's handler
     * @return the bound channel; its event loop's parent is the group to shut down
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel startDatagram(String transport, InetSocketAddress address, ChannelHandler handler)
        throws InterruptedException {
        return startDatagram(transport, address, handler, Map.of());
    }

    /**
     * {@link #startDatagram(String, InetSocketAddress, ChannelHandler)} with channel options of its own.
     *
     * @param options set after the socket buffer sizes every datagram server here gets (4 MiB each)
     */
    @SuppressWarnings("unchecked")
    public static Channel startDatagram(String transport, InetSocketAddress address, ChannelHandler handler,
                                        Map<ChannelOption<?>, Object> options) throws InterruptedException {
        Kind k = kind(transport);
        EventLoopGroup group = groupFor(1, k.factory().get());
        try {
            Bootstrap b = new Bootstrap()
                .group(group)
                .channel(k.datagram())
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.SO_SNDBUF, 4 << 20)
                .handler(handler);
            options.forEach((option, value) -> b.option((ChannelOption<Object>) option, value));
            return b.bind(address).sync().channel();
        } catch (Throwable e) { // sync() rethrows a failed bind's checked cause unchecked (EADDRINUSE...)
            shutDownOwn(group);
            throw e;
        }
    }

    /**
     * Starts a TCP server: one event-loop group serving accept and I/O, TCP_NODELAY on every child.
     *
     * @param transport    one of {@link #NAMES}
     * @param address      where to listen
     * @param threads      event-loop threads
     * @param childHandler each accepted channel's handler (typically a {@code ChannelInitializer})
     * @return the bound server channel; its event loop's parent is the group to shut down
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel startServer(String transport, InetSocketAddress address, int threads,
                                      ChannelHandler childHandler) throws InterruptedException {
        Kind k = kind(transport);
        return bindServer(new ServerBootstrap().childOption(ChannelOption.TCP_NODELAY, true), threads,
            k.factory().get(), k.serverSocket(), address, childHandler);
    }

    /**
     * Binds {@code bootstrap} on a new group of {@code threads} loops (or the shared one, {@link #onGroup}); a new
     * group is shut down if that fails.
     */
    private static Channel bindServer(ServerBootstrap bootstrap, int threads, IoHandlerFactory factory,
                                      Class<? extends ServerChannel> channel, java.net.SocketAddress address,
                                      ChannelHandler childHandler) throws InterruptedException {
        EventLoopGroup group = groupFor(threads, factory);
        try {
            return bootstrap
                .group(group)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childHandler(childHandler)
                .bind(address).sync().channel();
        } catch (Throwable e) { // sync() rethrows a failed bind's checked cause unchecked (EADDRINUSE...)
            shutDownOwn(group);
            throw e;
        }
    }
}
