package io.grpc.testing.integration;

import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * gRPC-java's interop tests with the server on Ringwire and the client on Netty's NIO transport: Ringwire's reads and
 * writes against a peer whose timing is not its own, as Netty's testsuite pairs transports.
 */
public class RingwireServerNioClientInteropTest extends NioPeerInteropTest {
    @Override
    protected ManagedChannelBuilder<?> createChannelBuilder() {
        return interopClient(NettyChannelBuilder.forAddress(getListenAddress())
            .channelType(NioSocketChannel.class).eventLoopGroup(nio));
    }
}
