package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketConnectionAttemptTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Netty's SocketConnectionAttemptTest, as Netty's io_uring and epoll modules run it, with its two bad-host cases
 * aimed at loopback. Netty's versions dial 198.51.100.254, where nothing answers; every socket a Ringwire test opens
 * stays on loopback, so here the host that never answers is a loopback listener whose accept queue is full: Linux
 * drops a SYN to such a listener (tcp_conn_request: "ListenOverflows"), and the connect waits as it would for a
 * silent host. The refused cases are Netty's, unchanged; the two others keep Netty's checks without its short bounds
 * on waits (3 s for a 2 s connect timeout, 0.5 s for a close), which a stalled machine can miss: the timeout must
 * fail with ConnectTimeoutException instead. Ringwire's client only: NIO's is not under test.
 */
class RingwireSocketConnectionAttemptTest extends SocketConnectionAttemptTest {
    private static ServerSocket silent;
    private static final List<Socket> QUEUED = new ArrayList<>();

    /** Fills a backlog-1 listener's accept queue until a connect to it times out: its next SYNs are dropped. */
    @BeforeAll
    static void listenerThatNeverAnswers() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        silent = new ServerSocket(0, 1, loopback);
        InetSocketAddress address = (InetSocketAddress) silent.getLocalSocketAddress();
        for (int i = 0; i < 64; i++) {
            Socket s = new Socket();
            try {
                s.connect(address, 2000); // a loopback handshake takes microseconds: a timeout means a dropped SYN
                QUEUED.add(s);
            } catch (SocketTimeoutException full) {
                s.close();
                return;
            }
        }
        throw new IllegalStateException("64 connections to a listener with a backlog of 1 were all accepted by the "
            + "kernel: its accept queue never filled, so no connect to it can time out");
    }

    @AfterAll
    static void closeListener() throws IOException {
        for (Socket s : QUEUED) {
            s.close();
        }
        QUEUED.clear();
        silent.close();
    }

    private static InetSocketAddress silentHost() {
        return (InetSocketAddress) silent.getLocalSocketAddress();
    }

    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return List.of(RingwireSocketTestPermutation.INSTANCE.clientSocket().get(0));
    }

    /**
     * Netty's test, with the silent listener for its bad host; instead of Netty's 3-second bound on the wait (which
     * a stalled machine can miss) the failure must be the connect timeout's own.
     */
    @Override
    public void testConnectTimeout(Bootstrap cb) throws Throwable {
        cb.handler(new ChannelInboundHandlerAdapter()).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000);
        ChannelFuture future = cb.connect(silentHost());
        try {
            assertTrue(future.await(30_000), "a connect to a host that never answers ends");
            assertInstanceOf(ConnectTimeoutException.class, future.cause(), "at CONNECT_TIMEOUT_MILLIS");
        } finally {
            future.channel().close();
        }
    }

    /**
     * Netty's test without its probe: Netty first checks with a plain socket that its bad host times out and skips
     * the test where it does not (no network); the silent listener always does.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    @Override
    public void testConnectCancellation(TestInfo testInfo) throws Throwable {
        run(testInfo, this::testConnectCancellation);
    }

    /** Netty's test, with the silent listener for its bad host. */
    @Override
    public void testConnectCancellation(Bootstrap cb) throws Throwable {
        cb.handler(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 4000);
        ChannelFuture future = cb.connect(silentHost());
        try {
            if (future.await(1000)) {
                if (future.isSuccess()) {
                    fail("A connection attempt to a listener whose accept queue is full must not succeed.");
                } else {
                    throw future.cause();
                }
            }
            assertTrue(future.cancel(true), "a pending connect can be cancelled");
            assertTrue(future.channel().closeFuture().await(30_000), "cancelling the connect closes the channel");
            assertTrue(future.isCancelled());
        } finally {
            future.channel().close();
        }
    }
}
