package io.grpc.testing.integration;

import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.AfterClass;
import org.junit.BeforeClass;

import java.util.concurrent.TimeUnit;

/**
 * gRPC-java's interop tests with the server on Ringwire and the client on Netty's NIO transport: Ringwire's reads and
 * writes against a peer whose timing is not its own, as Netty's testsuite pairs transports.
 */
public class RingwireServerNioClientInteropTest extends RingwireInteropTest {
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
    protected ManagedChannelBuilder<?> createChannelBuilder() {
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(getListenAddress())
            .channelType(NioSocketChannel.class)
            .eventLoopGroup(nio)
            .usePlaintext()
            .flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        InternalNettyChannelBuilder.setStatsEnabled(builder, false);
        return builder.intercept(createCensusStatsClientInterceptor());
    }
}
