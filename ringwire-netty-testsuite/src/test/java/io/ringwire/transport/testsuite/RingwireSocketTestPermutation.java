package io.ringwire.transport.testsuite;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketTestPermutation;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.channel.unix.DomainSocketAddress;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's socket test permutations with Ringwire in them, the way Netty's own io_uring and epoll modules run the
 * testsuite: every pairing of a Ringwire end with a Ringwire, NIO or Netty epoll end, both directions (Ringwire ×
 * Ringwire, Ringwire server × NIO client, NIO server × Ringwire client, and the same with epoll). Unix domain stream
 * and datagram sockets pair Ringwire with itself and with epoll (NIO's domain channels take the JDK's address type,
 * not Netty's {@code DomainSocketAddress}). Where Netty's epoll cannot load, its pairings are left out. Ringwire with
 * direct descriptors ({@link RingwireIoHandlerConfig#directDescriptors()}: connections in the loops' fixed-file
 * tables, no fd each) is paired with itself and with NIO both ways, and for Unix domain sockets with itself, where the
 * kernel has them; the lists of servers alone and of clients alone (for the tests whose other end is a plain socket)
 * have it too. Every class of the testsuite runs these pairings, TLS and traffic shaping included; SocketSslEchoTest
 * runs its full matrix of TLS cases over Ringwire × Ringwire and a representative subset over the other pairings
 * ({@link SslEchoCases}).
 */
public final class RingwireSocketTestPermutation extends SocketTestPermutation {
    static final RingwireSocketTestPermutation INSTANCE = new RingwireSocketTestPermutation();

    static final EventLoopGroup RINGWIRE_BOSS = new MultiThreadIoEventLoopGroup(1,
        new DefaultThreadFactory("testsuite-ringwire-boss", true), RingwireIoHandler.newFactory());
    static final EventLoopGroup RINGWIRE_WORKER = new MultiThreadIoEventLoopGroup(NUM_THREADS,
        new DefaultThreadFactory("testsuite-ringwire-worker", true), RingwireIoHandler.newFactory());

    /** Ringwire with direct descriptors; null where the kernel lacks them. */
    static final EventLoopGroup RINGWIRE_DIRECT_BOSS = directGroup(1, "testsuite-ringwire-direct-boss");
    static final EventLoopGroup RINGWIRE_DIRECT_WORKER = directGroup(NUM_THREADS, "testsuite-ringwire-direct-worker");

    private static EventLoopGroup directGroup(int threads, String name) {
        if (!IoUringProbe.get().isDirectDescriptorsSupported()) {
            return null;
        }
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true),
            RingwireIoHandler.newFactory(RingwireIoHandlerConfig.builder().directDescriptors(true).build()));
    }

    private final EventLoopGroup nioGroup = new MultiThreadIoEventLoopGroup(NUM_THREADS,
        new DefaultThreadFactory("testsuite-ringwire-nio", true), NioIoHandler.newFactory());
    /** Netty's epoll transport as the other end; null where its native library does not load. */
    private final EventLoopGroup epollGroup = Epoll.isAvailable() ? new MultiThreadIoEventLoopGroup(NUM_THREADS,
        new DefaultThreadFactory("testsuite-ringwire-epoll", true), EpollIoHandler.newFactory()) : null;

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return socket(true);
    }

    /**
     * As {@link #socket()}, but with direct descriptors only as both ends: for SocketSslEchoTest's representative
     * cases (see {@link SslEchoCases}; each direct pairing with NIO would cost its 192 cases about a minute on 2 cores).
     */
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketDirectWithItself() {
        return socket(false);
    }

    /**
     * Ringwire × Ringwire over TCP, with fds and with direct descriptors where the kernel has them: the pairings
     * SocketSslEchoTest runs every case over (see {@link SslEchoCases}).
     */
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketRingwireWithItself() {
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos =
            withRingwire(List.of(fdServers().get(0)), List.of(fdClients().get(0)));
        if (RINGWIRE_DIRECT_BOSS != null) {
            combos.addAll(withRingwire(List.of(directServer()), List.of(directClient())));
        }
        return combos;
    }

    private List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket(boolean directWithNio) {
        List<BootstrapFactory<ServerBootstrap>> servers = new ArrayList<>(fdServers());
        List<BootstrapFactory<Bootstrap>> clients = new ArrayList<>(fdClients());
        if (epollGroup != null) {
            servers.add(() -> new ServerBootstrap().group(epollGroup).channel(EpollServerSocketChannel.class));
            clients.add(() -> new Bootstrap().group(epollGroup).channel(EpollSocketChannel.class));
        }
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = withRingwire(servers, clients);
        if (RINGWIRE_DIRECT_BOSS != null) {
            combos.addAll(directWithNio
                ? withRingwire(List.of(directServer(), nioServer()), List.of(directClient(), nioClient()))
                : withRingwire(List.of(directServer()), List.of(directClient())));
        }
        return combos;
    }

    /** Ringwire's server, NIO's, and Ringwire's with direct descriptors where the kernel has them. */
    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        List<BootstrapFactory<ServerBootstrap>> servers = new ArrayList<>(fdServers());
        if (RINGWIRE_DIRECT_BOSS != null) {
            servers.add(directServer());
        }
        return servers;
    }

    /** Ringwire's client, NIO's, and Ringwire's with direct descriptors where the kernel has them. */
    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        List<BootstrapFactory<Bootstrap>> clients = new ArrayList<>(fdClients());
        if (RINGWIRE_DIRECT_BOSS != null) {
            clients.add(directClient());
        }
        return clients;
    }

    private List<BootstrapFactory<ServerBootstrap>> fdServers() {
        BootstrapFactory<ServerBootstrap> ringwire = () -> new ServerBootstrap()
            .group(RINGWIRE_BOSS, RINGWIRE_WORKER).channel(RingwireServerSocketChannel.class);
        return List.of(ringwire, nioServer());
    }

    private List<BootstrapFactory<Bootstrap>> fdClients() {
        BootstrapFactory<Bootstrap> ringwire = () -> new Bootstrap()
            .group(RINGWIRE_WORKER).channel(RingwireSocketChannel.class);
        return List.of(ringwire, nioClient());
    }

    private BootstrapFactory<ServerBootstrap> nioServer() {
        return () -> new ServerBootstrap().group(nioGroup, nioGroup).channel(NioServerSocketChannel.class);
    }

    private BootstrapFactory<Bootstrap> nioClient() {
        return () -> new Bootstrap().group(nioGroup).channel(NioSocketChannel.class);
    }

    private static BootstrapFactory<ServerBootstrap> directServer() {
        return () -> new ServerBootstrap()
            .group(RINGWIRE_DIRECT_BOSS, RINGWIRE_DIRECT_WORKER).channel(RingwireServerSocketChannel.class);
    }

    private static BootstrapFactory<Bootstrap> directClient() {
        return () -> new Bootstrap().group(RINGWIRE_DIRECT_WORKER).channel(RingwireSocketChannel.class);
    }

    /** Unix domain stream sockets: Ringwire × Ringwire, and Ringwire with Netty epoll both ways. */
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> domainSocket() {
        List<BootstrapFactory<ServerBootstrap>> servers = new ArrayList<>();
        servers.add(ringwireDomainServer());
        List<BootstrapFactory<Bootstrap>> clients = new ArrayList<>();
        clients.add(ringwireDomainClient());
        if (epollGroup != null) {
            servers.add(() -> new ServerBootstrap().group(epollGroup).channel(EpollServerDomainSocketChannel.class));
            clients.add(() -> new Bootstrap().group(epollGroup).channel(EpollDomainSocketChannel.class));
        }
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = withRingwire(servers, clients);
        if (RINGWIRE_DIRECT_BOSS != null) {
            combos.addAll(withRingwire(List.of(directDomainServer()), List.of(directDomainClient())));
        }
        return combos;
    }

    /**
     * Ringwire × Ringwire over Unix domain stream sockets, with fds and with direct descriptors where the kernel has
     * them: the pairings SocketSslEchoTest runs every case over (see {@link SslEchoCases}).
     */
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> domainSocketRingwireWithItself() {
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos =
            withRingwire(List.of(ringwireDomainServer()), List.of(ringwireDomainClient()));
        if (RINGWIRE_DIRECT_BOSS != null) {
            combos.addAll(withRingwire(List.of(directDomainServer()), List.of(directDomainClient())));
        }
        return combos;
    }

    private static BootstrapFactory<ServerBootstrap> ringwireDomainServer() {
        return () -> new ServerBootstrap()
            .group(RINGWIRE_BOSS, RINGWIRE_WORKER).channel(RingwireServerDomainSocketChannel.class);
    }

    private static BootstrapFactory<Bootstrap> ringwireDomainClient() {
        return () -> new Bootstrap().group(RINGWIRE_WORKER).channel(RingwireDomainSocketChannel.class);
    }

    private static BootstrapFactory<Bootstrap> directDomainClient() {
        return () -> new Bootstrap().group(RINGWIRE_DIRECT_WORKER).channel(RingwireDomainSocketChannel.class);
    }

    /**
     * Ringwire's Unix domain stream server, with fds and with direct descriptors where the kernel has them, for the
     * tests whose peer is a plain socket.
     */
    public List<BootstrapFactory<ServerBootstrap>> domainServerSocket() {
        List<BootstrapFactory<ServerBootstrap>> servers = new ArrayList<>();
        servers.add(ringwireDomainServer());
        if (RINGWIRE_DIRECT_BOSS != null) {
            servers.add(directDomainServer());
        }
        return servers;
    }

    private static BootstrapFactory<ServerBootstrap> directDomainServer() {
        return () -> new ServerBootstrap()
            .group(RINGWIRE_DIRECT_BOSS, RINGWIRE_DIRECT_WORKER).channel(RingwireServerDomainSocketChannel.class);
    }

    /** @return a fresh path in the temporary directory, no file there yet */
    static DomainSocketAddress newDomainSocketAddress() {
        try {
            File f = File.createTempFile("ringwire-test", ".sock");
            if (!f.delete()) {
                throw new IOException("could not delete " + f);
            }
            return new DomainSocketAddress(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return a fresh name in Linux's abstract namespace (no file) */
    static DomainSocketAddress newAbstractDomainSocketAddress() {
        return new DomainSocketAddress("\0ringwire-test-" + java.util.UUID.randomUUID());
    }

    /** Datagram channels of {@code family}: Ringwire with Ringwire, NIO and Netty epoll, both ways. */
    @Override
    public List<BootstrapComboFactory<Bootstrap, Bootstrap>> datagram(SocketProtocolFamily family) {
        List<BootstrapFactory<Bootstrap>> ends = new ArrayList<>();
        ends.add(() -> new Bootstrap().group(RINGWIRE_WORKER)
            .channelFactory((ChannelFactory<Channel>) () -> new RingwireDatagramChannel(family)));
        ends.add(() -> new Bootstrap().group(nioGroup)
            .channelFactory((ChannelFactory<Channel>) () -> new NioDatagramChannel(family)));
        if (epollGroup != null) {
            ends.add(() -> new Bootstrap().group(epollGroup)
                .channelFactory((ChannelFactory<Channel>) () -> new EpollDatagramChannel(family)));
        }
        return withRingwire(ends, ends);
    }

    /**
     * Unix domain datagram sockets: Ringwire × Ringwire, and Ringwire with Netty epoll both ways (NIO has no domain
     * datagram channel).
     */
    public List<BootstrapComboFactory<Bootstrap, Bootstrap>> domainDatagram() {
        List<BootstrapFactory<Bootstrap>> ends = new ArrayList<>();
        ends.add(() -> new Bootstrap().group(RINGWIRE_WORKER).channel(RingwireDomainDatagramChannel.class));
        if (epollGroup != null) {
            ends.add(() -> new Bootstrap().group(epollGroup).channel(EpollDomainDatagramChannel.class));
        }
        return withRingwire(ends, ends);
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> datagramSocket() {
        return List.of(() -> new Bootstrap().group(RINGWIRE_WORKER).channel(RingwireDatagramChannel.class));
    }

    /**
     * Every pairing of a server end from {@code servers} with a client end from {@code clients} in which at least one
     * is Ringwire's (the first of each list): the others test nothing of Ringwire's.
     */
    private static <A extends AbstractBootstrap<?, ?>, B extends AbstractBootstrap<?, ?>>
        List<BootstrapComboFactory<A, B>> withRingwire(List<BootstrapFactory<A>> servers,
                                                       List<BootstrapFactory<B>> clients) {
        List<BootstrapComboFactory<A, B>> combos = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            for (int c = 0; c < clients.size(); c++) {
                if (s == 0 || c == 0) {
                    BootstrapFactory<A> server = servers.get(s);
                    BootstrapFactory<B> client = clients.get(c);
                    combos.add(new BootstrapComboFactory<>() {
                        @Override
                        public A newServerInstance() {
                            return server.newInstance();
                        }

                        @Override
                        public B newClientInstance() {
                            return client.newInstance();
                        }
                    });
                }
            }
        }
        return combos;
    }
}
