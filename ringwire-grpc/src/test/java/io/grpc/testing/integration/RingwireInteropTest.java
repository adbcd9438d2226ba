package io.grpc.testing.integration;

import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.InternalNettyServerBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.ringwire.grpc.RingwireGrpc;
import org.junit.AfterClass;
import org.junit.BeforeClass;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java's interop tests (its {@code AbstractInteropTest}, 35 cases: large and streaming calls under a 65 KiB
 * flow-control window, flow-controlled server streaming, cancellation, deadlines, message size limits, metadata,
 * compression, graceful shutdown) with grpc-netty's server and client both on Ringwire, in plaintext over TCP on
 * loopback, set up as gRPC's own {@code Http2NettyTest} runs them on Netty's transports. In gRPC's package: the
 * server's listening address is package-private there. {@link RingwireDomainSocketInteropTest} runs them over a Unix
 * domain socket.
 */
public class RingwireInteropTest extends AbstractInteropTest {
    /** The event loops of the class's servers and clients (JUnit 4 runs these once for each class). */
    static EventLoopGroup GROUP;

    @BeforeClass
    public static void startGroup() {
        GROUP = RingwireGrpc.newEventLoopGroup(2);
    }

    @AfterClass
    public static void shutDownGroup() throws InterruptedException {
        GROUP.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    /** @return where the server listens */
    protected SocketAddress listenAt() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Override
    protected ServerBuilder<?> getServerBuilder() {
        return interopServer(RingwireGrpc.serverBuilder(listenAt(), GROUP));
    }

    @Override
    protected ManagedChannelBuilder<?> createChannelBuilder() {
        return interopClient(RingwireGrpc.channelBuilder(getListenAddress(), GROUP));
    }

    /** @return {@code builder} set up as gRPC's Http2NettyTest sets up its server */
    final ServerBuilder<?> interopServer(NettyServerBuilder builder) {
        builder.flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        // the tests check the stats of their own census recorder, not those of gRPC's default one
        InternalNettyServerBuilder.setStatsEnabled(builder, false);
        return builder.addStreamTracerFactory(createCustomCensusTracerFactory());
    }

    /** @return {@code builder} set up as gRPC's Http2NettyTest sets up its client, in plaintext */
    final ManagedChannelBuilder<?> interopClient(NettyChannelBuilder builder) {
        builder.usePlaintext()
            .flowControlWindow(AbstractInteropTest.TEST_FLOW_CONTROL_WINDOW)
            .maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
        InternalNettyChannelBuilder.setStatsEnabled(builder, false);
        return builder.intercept(createCensusStatsClientInterceptor());
    }
}
