package io.grpc.testing.integration;

import io.grpc.ServerBuilder;
import io.grpc.netty.InternalNettyServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.AfterClass;
import org.junit.BeforeClass;

import java.util.concurrent.TimeUnit;

/** gRPC-java's interop tests with the server on Netty's NIO transport and the client on Ringwire. */
public class NioServerRingwireClientInteropTest extends RingwireInteropTest {
    private static EventLoopGroup nio;

    @BeforeClass
    public static void startNio() {
        nio = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterClass
    public static void shutDownNio() throws InterruptedException {
        nio.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    @Override
    protected ServerBuilder<?> getServerBuilder() {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(listenAt())
            .channelType(NioServerSocketChannel.class)
            .bossEventLoopGroup(nio)
            .workerEventLoopGroup(nio)
            .flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        InternalNettyServerBuilder.setStatsEnabled(builder, false);
        return builder.addStreamTracerFactory(createCustomCensusTracerFactory());
    }
}
