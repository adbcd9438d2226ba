package io.grpc.testing.integration;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import org.junit.BeforeClass;

import java.util.concurrent.TimeUnit;

/**
 * gRPC-java's interop tests on Ringwire with every optional io_uring feature off at once (DEFER_TASKRUN,
 * SINGLE_ISSUER, the SQ array's absence, the registered ring fd, multishot receives, the buffer ring, direct
 * receives, fixed files): the single-shot receive into the allocator's buffer and the plain submission paths a
 * kernel without them takes, under HTTP/2's flow control.
 */
public class RingwireFeaturesOffInteropTest extends RingwireInteropTest {
    @BeforeClass
    public static void everyFeatureOff() throws InterruptedException {
        GROUP.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS); // the default one, made first
        RingwireIoHandlerConfig config = RingwireIoHandlerConfig.builder()
            .deferTaskrun(false).singleIssuer(false).noSqArray(false).registerRingFd(false)
            .multishotRecv(false).bufferRing(false).directReceive(false).fixedFiles(0)
            .build();
        GROUP = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory(config));
    }
}
