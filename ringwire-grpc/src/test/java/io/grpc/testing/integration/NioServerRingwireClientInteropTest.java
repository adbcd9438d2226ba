package io.grpc.testing.integration;

import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** gRPC-java's interop tests with the server on Netty's NIO transport and the client on Ringwire. */
public class NioServerRingwireClientInteropTest extends NioPeerInteropTest {
    @Override
    protected ServerBuilder<?> getServerBuilder() {
        return interopServer(NettyServerBuilder.forAddress(listenAt())
            .channelType(NioServerSocketChannel.class).bossEventLoopGroup(nio).workerEventLoopGroup(nio));
    }
}
