package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * 10,000 connections open at once to a Ringwire server on two loops, each echoing byte-checked messages, then all
 * closed: no error on either side, and the server's descriptors and the binding's native memory back where they
 * started. The client runs in a child process (a second JVM on the same classpath), so each side needs only its own
 * 10,000 descriptors; both raise RLIMIT_NOFILE themselves, and the test is skipped, saying so, where the hard limit
 * is too low.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ManyConnectionsTest {
    private static final int CONNECTIONS = 10_000;
    private static final int MESSAGES = 3;
    private static final int SIZE = 128;

    @Test
    void tenThousandConnectionsEchoAndCloseCleanly() throws Throwable {
        long limit = io.ringwire.uring.OpenFileLimit.raise(CONNECTIONS + 1_000).soft();
        assumeTrue(limit >= CONNECTIONS + 500, "RLIMIT_NOFILE's hard limit (" + limit + ") is below the "
            + (CONNECTIONS + 500) + " descriptors this test needs: raise it (ulimit -Hn) to run it");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
        try {
            TrackingEcho echo = new TrackingEcho(CONNECTIONS);
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .option(io.netty.channel.ChannelOption.SO_BACKLOG, 4096).childHandler(echo)
                .bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0)).sync().channel();
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                loop.submit(() -> { }).sync(); // a loop builds its ring and buffers when its thread starts
            }
            long fdsBefore = TrackingEcho.openFds();
            long nativeBefore = NativeMemory.heldBytes();
            String java = ProcessHandle.current().info().command().orElse("java");
            Process client = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-Dio.netty.leakDetection.level=paranoid", "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), ManyConnectionsClient.class.getName(),
                String.valueOf(((InetSocketAddress) server.localAddress()).getPort()), String.valueOf(CONNECTIONS),
                String.valueOf(MESSAGES), String.valueOf(SIZE)).redirectErrorStream(true).start();
            byte[] out = client.getInputStream().readAllBytes();
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client process ended");
            String output = new String(out, StandardCharsets.UTF_8);
            List<String> result = output.lines().filter(l -> l.startsWith("RESULT")).toList();
            assertEquals(1, result.size(), () -> "the client's output:\n" + output);
            assertEquals(0, client.exitValue(), result.get(0));
            assertTrue(result.get(0).contains("openAtEnd=" + CONNECTIONS + " allEchoed=true errors=0"), result.get(0));
            assertEquals(CONNECTIONS, echo.mostOpen.get(), "every connection open at once on the server");

            // the client has closed everything: the server's channels see EOF and close
            for (int i = 0; i < 600 && (echo.open.get() > 0 || TrackingEcho.openFds() > fdsBefore); i++) {
                Thread.sleep(50);
            }
            assertEquals(0, echo.open.get(), "every server channel closed");
            assertEquals(0, echo.errors.get(), "no error on the server");
            assertEquals(fdsBefore, TrackingEcho.openFds(), "the server's descriptors are back to their start");
            assertEquals(nativeBefore, NativeMemory.heldBytes(), "the binding's native memory is back to its start");
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
