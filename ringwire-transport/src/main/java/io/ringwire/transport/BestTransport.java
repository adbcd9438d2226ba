package io.ringwire.transport;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The best transport this process can run on, as {@link Ringwire#bestTransport()} chose it: Ringwire where it is
 * available, else Netty's epoll transport where {@code netty-transport-native-epoll} is on the class path and
 * {@code Epoll.isAvailable()}, else NIO. It gives the event loops' {@link IoHandlerFactory} and the channel classes
 * that go with them, says which transport it is ({@link #kind()}) and why ({@link #reason()},
 * {@link #ringwireUnavailabilityCause()}):
 *
 * <pre>{@code
 * BestTransport transport = Ringwire.bestTransport();
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(transport.ioHandlerFactory());
 * ServerBootstrap b = new ServerBootstrap().group(group).channel(transport.serverSocketChannelClass());
 * }</pre>
 *
 * Unix domain sockets: Ringwire and epoll have channels for them; NIO has none of Netty's {@code DomainSocketChannel}
 * kind, so with NIO {@link #domainSocketChannelClass()}, {@link #serverDomainSocketChannelClass()} and
 * {@link #domainDatagramChannelClass()} are {@code null} ({@link #supportsDomainSockets()} false).
 *
 * <p>Immutable. Netty's epoll transport is an optional dependency: its classes are touched only when
 * {@code io.netty.channel.epoll.Epoll} is on the class path (on the module path, the application's module must read
 * {@code io.netty.transport.classes.epoll}).
 */
public final class BestTransport {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(BestTransport.class);

    /** The transports {@link Ringwire#bestTransport()} chooses from, in its order of preference. */
    public enum Kind {
        /** Ringwire, on io_uring. */
        RINGWIRE,
        /** Netty's epoll transport ({@code netty-transport-native-epoll}). */
        EPOLL,
        /** Netty's NIO transport (the JDK's selector), which runs everywhere. */
        NIO
    }

    private final Kind kind;
    private final Throwable ringwireCause;
    private final String reason;

    private BestTransport(Kind kind, Throwable ringwireCause, String reason) {
        this.kind = kind;
        this.ringwireCause = ringwireCause;
        this.reason = reason;
    }

    /** The choice for this process, made once (on the first call of {@link Ringwire#bestTransport()}) and logged. */
    static final class Chosen {
        static final BestTransport INSTANCE = choose(Ringwire.unavailabilityCause(), EpollPresence.cause());

        static {
            if (INSTANCE.kind == Kind.RINGWIRE) {
                logger.info("Netty runs on {}: {}", INSTANCE.kind, INSTANCE.reason);
            } else {
                logger.warn("Netty runs on {}: {}", INSTANCE.kind, INSTANCE.reason);
            }
        }

        private Chosen() { }
    }

    /**
     * @param ringwireCause why Ringwire cannot run, or {@code null} if it can
     * @param epollCause    why Netty's epoll transport cannot run (not on the class path, or its own cause), or
     *                      {@code null} if it can
     */
    static BestTransport choose(Throwable ringwireCause, Throwable epollCause) {
        if (ringwireCause == null) {
            return new BestTransport(Kind.RINGWIRE, null, "io_uring is available");
        }
        String why = "Ringwire cannot run: " + describe(ringwireCause);
        if (epollCause == null) {
            return new BestTransport(Kind.EPOLL, ringwireCause, why + "; Netty's epoll transport is available");
        }
        return new BestTransport(Kind.NIO, ringwireCause, why + "; Netty's epoll transport is not: "
            + describe(epollCause));
    }

    private static String describe(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** @return the transport chosen */
    public Kind kind() {
        return kind;
    }

    /** @return whether the transport chosen is Ringwire */
    public boolean isRingwire() {
        return kind == Kind.RINGWIRE;
    }

    /**
     * @return why this transport was chosen, in a sentence: when it is not Ringwire, Ringwire's unavailability cause
     *         (e.g. io_uring_setup refused with EPERM by a seccomp profile or {@code kernel.io_uring_disabled}) and,
     *         for NIO, why epoll was not taken either
     */
    public String reason() {
        return reason;
    }

    /**
     * @return {@link Ringwire#unavailabilityCause()} as it was when the choice was made, or {@code null} if the
     *         transport chosen is Ringwire
     */
    public Throwable ringwireUnavailabilityCause() {
        return ringwireCause;
    }

    /** @return a new factory of the chosen transport's {@code IoHandler}s, with their default configuration */
    public IoHandlerFactory ioHandlerFactory() {
        return ioHandlerFactory(null);
    }

    /**
     * @param config Ringwire's configuration of each loop, used only if the transport chosen is Ringwire
     *               ({@code null}: the default)
     * @return a new factory of the chosen transport's {@code IoHandler}s
     */
    public IoHandlerFactory ioHandlerFactory(RingwireIoHandlerConfig config) {
        return switch (kind) {
            case RINGWIRE -> config == null ? RingwireIoHandler.newFactory() : RingwireIoHandler.newFactory(config);
            case EPOLL -> EpollTransport.ioHandlerFactory();
            case NIO -> NioIoHandler.newFactory();
        };
    }

    /** @return the TCP client channel class: {@code RingwireSocketChannel}, {@code EpollSocketChannel} or NIO's */
    public Class<? extends SocketChannel> socketChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireSocketChannel.class;
            case EPOLL -> EpollTransport.socketChannelClass();
            case NIO -> NioSocketChannel.class;
        };
    }

    /** @return the TCP server channel class */
    public Class<? extends ServerSocketChannel> serverSocketChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireServerSocketChannel.class;
            case EPOLL -> EpollTransport.serverSocketChannelClass();
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /** @return the UDP channel class */
    public Class<? extends DatagramChannel> datagramChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireDatagramChannel.class;
            case EPOLL -> EpollTransport.datagramChannelClass();
            case NIO -> NioDatagramChannel.class;
        };
    }

    /** @return whether the transport chosen has Netty's Unix domain socket channels (Ringwire and epoll; not NIO) */
    public boolean supportsDomainSockets() {
        return kind != Kind.NIO;
    }

    /** @return the Unix domain stream client channel class, or {@code null} with NIO, which has none */
    public Class<? extends DomainSocketChannel> domainSocketChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireDomainSocketChannel.class;
            case EPOLL -> EpollTransport.domainSocketChannelClass();
            case NIO -> null;
        };
    }

    /** @return the Unix domain stream server channel class, or {@code null} with NIO, which has none */
    public Class<? extends ServerDomainSocketChannel> serverDomainSocketChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireServerDomainSocketChannel.class;
            case EPOLL -> EpollTransport.serverDomainSocketChannelClass();
            case NIO -> null;
        };
    }

    /** @return the Unix domain datagram channel class, or {@code null} with NIO, which has none */
    public Class<? extends DomainDatagramChannel> domainDatagramChannelClass() {
        return switch (kind) {
            case RINGWIRE -> RingwireDomainDatagramChannel.class;
            case EPOLL -> EpollTransport.domainDatagramChannelClass();
            case NIO -> null;
        };
    }

    @Override
    public String toString() {
        return "BestTransport[" + kind + ": " + reason + "]";
    }

    /** Whether Netty's epoll transport is there and can run, without touching its classes when it is absent. */
    static final class EpollPresence {
        static final String EPOLL_CLASS = "io.netty.channel.epoll.Epoll";

        private EpollPresence() { }

        /** @return why epoll cannot run here, or {@code null} if it can */
        static Throwable cause() {
            Class<?> epoll;
            try {
                epoll = Class.forName(EPOLL_CLASS, false, BestTransport.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return new UnsupportedOperationException("netty-transport-native-epoll is not on the class path");
            }
            // this module (when it is one) links to epoll's classes only if it reads their module: Ringwire's
            // descriptor requires it statically, which adds no edge when epoll is on the class path or unresolved
            BestTransport.class.getModule().addReads(epoll.getModule());
            try {
                return EpollTransport.unavailabilityCause();
            } catch (LinkageError e) {
                return new UnsupportedOperationException("Netty's epoll transport cannot be loaded: " + e, e);
            }
        }
    }
}
