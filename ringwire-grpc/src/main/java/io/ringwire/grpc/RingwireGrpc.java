package io.ringwire.grpc;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.net.SocketAddress;

/**
 * gRPC-java's Netty transport on Ringwire. gRPC picks Netty's epoll or NIO by itself; these builders hand it
 * Ringwire's event loops and channel classes instead, for TCP ({@code InetSocketAddress}) or Unix domain sockets
 * ({@link DomainSocketAddress}):
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
 * .eventLoopGroup(g)}. The group is the caller's: shut it down after the servers and channels that use it.
 */
public final class RingwireGrpc {
    private RingwireGrpc() { }

    /**
     * @param threads event loops
     * @return a group of Ringwire event loops with the default configuration
     */
    public static EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, RingwireIoHandler.newFactory());
    }

    /**
     * @param address where to listen: an {@code InetSocketAddress}, or a {@link DomainSocketAddress}
     * @param group   Ringwire event loops that accept and serve (gRPC's boss and worker groups)
     * @return gRPC's Netty server builder, set up for Ringwire
     */
    public static NettyServerBuilder serverBuilder(SocketAddress address, EventLoopGroup group) {
        return NettyServerBuilder.forAddress(address)
            .channelType(address instanceof DomainSocketAddress ? RingwireServerDomainSocketChannel.class
                : RingwireServerSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group);
    }

    /**
     * @param address the server: an {@code InetSocketAddress}, or a {@link DomainSocketAddress}
     * @param group   Ringwire event loops for the channel's connections
     * @return gRPC's Netty channel builder, set up for Ringwire
     */
    public static NettyChannelBuilder channelBuilder(SocketAddress address, EventLoopGroup group) {
        NettyChannelBuilder b = NettyChannelBuilder.forAddress(address).eventLoopGroup(group);
        return address instanceof DomainSocketAddress
            ? b.channelType(RingwireDomainSocketChannel.class, DomainSocketAddress.class)
            : b.channelType(RingwireSocketChannel.class);
    }
}
