package io.ringwire.grpc;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;

import java.net.SocketAddress;

/**
 * gRPC-java's Netty transport on Ringwire. gRPC picks Netty's epoll or NIO by itself; these builders hand it
 * Ringwire's event loops and channel classes instead, for TCP ({@code InetSocketAddress}) or Unix domain sockets
 * ({@link DomainSocketAddress}). Where Ringwire cannot run, the loops and channel classes are those of the next best
 * transport, as {@link Ringwire#bestTransport()} chooses it (Netty's epoll when {@code netty-transport-native-epoll}
 * is on the class path, else NIO; logged once, with the reason), so a server starts everywhere:
 *
 * <pre>{@code
 * EventLoopGroup group = RingwireGrpc.newEventLoopGroup(1);
 * Server server = RingwireGrpc.serverBuilder(new InetSocketAddress("127.0.0.1", 50051), group)
 *     .addService(service).build().start();
 * ManagedChannel channel = RingwireGrpc.channelBuilder(server.getListenSockets().get(0), group)
 *     .usePlaintext().build();
 * }</pre>
 *
 * The same three calls on gRPC's own builders do it without this class:
 * {@code NettyServerBuilder.forAddress(a).channelType(RingwireServerSocketChannel.class).bossEventLoopGroup(g)
 * .workerEventLoopGroup(g)} and {@code NettyChannelBuilder.forAddress(a).channelType(RingwireSocketChannel.class)
 * .eventLoopGroup(g)}. The group is the caller's: shut it down after the servers and channels that use it. The
 * builders take a group of {@link #newEventLoopGroup}'s (the transport {@link Ringwire#bestTransport()} chose).
 */
public final class RingwireGrpc {
    private RingwireGrpc() { }

    /**
     * @param threads event loops
     * @return a group of Ringwire event loops with the default configuration, or of the best transport available
     *         where Ringwire cannot run ({@link Ringwire#bestTransport()})
     */
    public static EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, Ringwire.bestTransport().ioHandlerFactory());
    }

    /**
     * @param address where to listen: an {@code InetSocketAddress}, or a {@link DomainSocketAddress}
     * @param group   event loops of {@link #newEventLoopGroup} that accept and serve (gRPC's boss and worker groups)
     * @return gRPC's Netty server builder, set up for Ringwire (or the best transport available)
     * @throws IllegalArgumentException for a domain socket address where the best transport is NIO, which has no
     *                                  domain socket channels
     */
    public static NettyServerBuilder serverBuilder(SocketAddress address, EventLoopGroup group) {
        BestTransport transport = Ringwire.bestTransport();
        return NettyServerBuilder.forAddress(address)
            .channelType(address instanceof DomainSocketAddress
                ? domain(transport.serverDomainSocketChannelClass(), transport)
                : transport.serverSocketChannelClass())
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group);
    }

    /**
     * @param address the server: an {@code InetSocketAddress}, or a {@link DomainSocketAddress}
     * @param group   event loops of {@link #newEventLoopGroup} for the channel's connections
     * @return gRPC's Netty channel builder, set up for Ringwire (or the best transport available)
     * @throws IllegalArgumentException for a domain socket address where the best transport is NIO, which has no
     *                                  domain socket channels
     */
    public static NettyChannelBuilder channelBuilder(SocketAddress address, EventLoopGroup group) {
        BestTransport transport = Ringwire.bestTransport();
        NettyChannelBuilder b = NettyChannelBuilder.forAddress(address).eventLoopGroup(group);
        return address instanceof DomainSocketAddress
            ? b.channelType(domain(transport.domainSocketChannelClass(), transport), DomainSocketAddress.class)
            : b.channelType(transport.socketChannelClass());
    }

    private static <T> T domain(T channelClass, BestTransport transport) {
        if (channelClass == null) {
            throw new IllegalArgumentException(transport.kind() + " has no Unix domain socket channels ("
                + transport.reason() + ")");
        }
        return channelClass;
    }
}
