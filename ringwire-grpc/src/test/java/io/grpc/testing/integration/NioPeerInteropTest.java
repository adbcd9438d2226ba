package io.grpc.testing.integration;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.AfterClass;
import org.junit.BeforeClass;

import java.util.concurrent.TimeUnit;

/** gRPC's interop tests with one side on Netty's NIO transport: its event loops, made once for each class. */
abstract class NioPeerInteropTest extends RingwireInteropTest {
    static EventLoopGroup nio;

    @BeforeClass
    public static void startNio() {
        nio = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterClass
    public static void shutDownNio() throws InterruptedException {
        nio.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
}
