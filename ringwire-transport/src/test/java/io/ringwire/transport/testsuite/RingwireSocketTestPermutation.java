package io.ringwire.transport.testsuite;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
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
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Netty's socket test permutations with Ringwire in them, the way Netty's own io_uring and epoll modules run the
 * testsuite: Ringwire server × Ringwire client, Ringwire server × NIO client, NIO server × Ringwire client.
 */
public final class RingwireSocketTestPermutation extends SocketTestPermutation {
    static final RingwireSocketTestPermutation INSTANCE = new RingwireSocketTestPermutation();

    static final EventLoopGroup RINGWIRE_BOSS = new MultiThreadIoEventLoopGroup(1,
        new DefaultThreadFactory("testsuite-ringwire-boss", true), RingwireIoHandler.newFactory());
    static final EventLoopGroup RINGWIRE_WORKER = new MultiThreadIoEventLoopGroup(NUM_THREADS,
        new DefaultThreadFactory("testsuite-ringwire-worker", true), RingwireIoHandler.newFactory());

    private final EventLoopGroup nioGroup = new MultiThreadIoEventLoopGroup(NUM_THREADS,
        new DefaultThreadFactory("testsuite-ringwire-nio", true), NioIoHandler.newFactory());

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return combo(serverSocket(), clientSocket());
    }

    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        BootstrapFactory<ServerBootstrap> ringwire = () -> new ServerBootstrap()
            .group(RINGWIRE_BOSS, RINGWIRE_WORKER).channel(RingwireServerSocketChannel.class);
        BootstrapFactory<ServerBootstrap> nio = () -> new ServerBootstrap()
            .group(nioGroup, nioGroup).channel(NioServerSocketChannel.class);
        return List.of(ringwire, nio);
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        BootstrapFactory<Bootstrap> ringwire = () -> new Bootstrap()
            .group(RINGWIRE_WORKER).channel(RingwireSocketChannel.class);
        BootstrapFactory<Bootstrap> nio = () -> new Bootstrap()
            .group(nioGroup).channel(NioSocketChannel.class);
        return List.of(ringwire, nio);
    }

    /**
     * Unix domain stream sockets, Ringwire on both ends (NIO's domain channels take the JDK's address type, not
     * Netty's {@code DomainSocketAddress}, so they cannot share a test).
     */
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> domainSocket() {
        BootstrapFactory<ServerBootstrap> server = domainServerSocket().get(0);
        BootstrapFactory<Bootstrap> client = () -> new Bootstrap()
            .group(RINGWIRE_WORKER).channel(RingwireDomainSocketChannel.class);
        return List.of(only(server, client));
    }

    /** A Ringwire Unix domain stream server, for the tests whose peer is a plain socket. */
    public List<BootstrapFactory<ServerBootstrap>> domainServerSocket() {
        return List.of(() -> new ServerBootstrap()
            .group(RINGWIRE_BOSS, RINGWIRE_WORKER).channel(RingwireServerDomainSocketChannel.class));
    }

    /** The one combination of {@code server} and {@code client} (Netty's {@code combo} would pair lists). */
    private static <S extends AbstractBootstrap<?, ?>, C extends AbstractBootstrap<?, ?>>
        BootstrapComboFactory<S, C> only(BootstrapFactory<S> server, BootstrapFactory<C> client) {
        return new BootstrapComboFactory<>() {
            @Override
            public S newServerInstance() {
                return server.newInstance();
            }

            @Override
            public C newClientInstance() {
                return client.newInstance();
            }
        };
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

    /** Ringwire × Ringwire, Ringwire × NIO and NIO × Ringwire datagram channels of {@code family}. */
    @Override
    public List<BootstrapComboFactory<Bootstrap, Bootstrap>> datagram(SocketProtocolFamily family) {
        BootstrapFactory<Bootstrap> ringwire = () -> new Bootstrap().group(RINGWIRE_WORKER)
            .channelFactory((ChannelFactory<Channel>) () -> new RingwireDatagramChannel(family));
        BootstrapFactory<Bootstrap> nio = () -> new Bootstrap().group(nioGroup)
            .channelFactory((ChannelFactory<Channel>) () -> new NioDatagramChannel(family));
        return combo(List.of(ringwire, nio), List.of(ringwire, nio));
    }

    /** Unix domain datagram sockets, Ringwire on both ends (NIO has no domain datagram channel). */
    public List<BootstrapComboFactory<Bootstrap, Bootstrap>> domainDatagram() {
        BootstrapFactory<Bootstrap> ringwire = () -> new Bootstrap().group(RINGWIRE_WORKER)
            .channel(RingwireDomainDatagramChannel.class);
        return List.of(only(ringwire, ringwire));
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> datagramSocket() {
        return List.of(() -> new Bootstrap().group(RINGWIRE_WORKER).channel(RingwireDatagramChannel.class));
    }

    /** Every combination except NIO × NIO, which tests nothing of Ringwire's. */
    @Override
    protected <A extends AbstractBootstrap<?, ?>, B extends AbstractBootstrap<?, ?>>
        List<BootstrapComboFactory<A, B>> combo(List<BootstrapFactory<A>> sbfs, List<BootstrapFactory<B>> cbfs) {
        List<BootstrapComboFactory<A, B>> all = super.combo(sbfs, cbfs);
        all.remove(all.size() - 1);
        return all;
    }
}
