package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A half-open connection: the peer's host vanishes without a FIN or RST (its link goes down), and the server only
 * learns of it by writing. The peer lives in a network namespace this test creates (a veth pair, 10.231.0.1 here,
 * 10.231.0.2 there); with {@link RingwireChannelOption#TCP_USER_TIMEOUT} at 1 s the server's write goes
 * unacknowledged, the kernel drops the connection with ETIMEDOUT, and the channel says so and closes. Needs root and
 * iproute2, and a kernel and container that allow network namespaces and veth pairs (skipped, saying which step failed,
 * without them).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HalfOpenPeerTest extends OneLoopTestBase {
    private final String ns = "rwho" + ProcessHandle.current().pid() % 100_000;
    private final String hostSide = "rwa" + ProcessHandle.current().pid() % 100_000;
    private final String peerSide = "rwb" + ProcessHandle.current().pid() % 100_000;
    private Process peer;

    private static int run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    @BeforeEach
    void createNamespace() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create a network namespace");
        assumeTrue(run("ip", "-V") == 0, "needs iproute2 (ip)");
        assumeTrue(run("python3", "-c", "pass") == 0, "needs python3 for the peer");
        for (List<String> cmd : List.of(
            List.of("ip", "netns", "add", ns),
            List.of("ip", "link", "add", hostSide, "type", "veth", "peer", "name", peerSide),
            List.of("ip", "link", "set", peerSide, "netns", ns),
            List.of("ip", "addr", "add", "10.231.0.1/30", "dev", hostSide),
            List.of("ip", "link", "set", hostSide, "up"),
            List.of("ip", "netns", "exec", ns, "ip", "addr", "add", "10.231.0.2/30", "dev", peerSide),
            List.of("ip", "netns", "exec", ns, "ip", "link", "set", peerSide, "up"))) {
            // a container without CAP_NET_ADMIN or veth support cannot: say so and skip
            assumeTrue(run(cmd.toArray(String[]::new)) == 0, "cannot set up the test's network namespace: " + cmd);
        }
    }

    @AfterEach
    void deleteNamespace() throws Exception {
        if (peer != null) {
            peer.destroyForcibly().waitFor();
        }
        run("ip", "netns", "del", ns); // takes the veth pair with it
        run("ip", "link", "del", hostSide);
    }

    @Test
    void aPeerThatVanishedIsFoundOutByTheUserTimeout() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childOption(RingwireChannelOption.TCP_USER_TIMEOUT, 1000)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel());
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    failure.complete(cause);
                    ctx.close();
                }
            }).bind(new InetSocketAddress(InetAddress.getByName("10.231.0.1"), 0)).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            peer = new ProcessBuilder("ip", "netns", "exec", ns, "python3", "-c",
                "import socket,time\n"
                    + "s = socket.create_connection(('10.231.0.1', " + port + "))\n"
                    + "print('connected', flush=True)\n"
                    + "time.sleep(120)\n").redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                StandardCharsets.UTF_8));
            assertEquals("connected", out.readLine());
            Channel child = accepted.get(10, TimeUnit.SECONDS);
            assertEquals(1000, child.config().getOption(RingwireChannelOption.TCP_USER_TIMEOUT));

            // the peer's host vanishes: no FIN, no RST, its packets simply stop
            assertEquals(0, run("ip", "netns", "exec", ns, "ip", "link", "set", peerSide, "down"));
            child.writeAndFlush(child.alloc().directBuffer(1000).writeZero(1000));

            Throwable cause = failure.get(60, TimeUnit.SECONDS);
            assertTrue(String.valueOf(cause.getMessage()).contains("ETIMEDOUT"), () -> "the errno is named: " + cause);
            assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the channel closed");
        } finally {
            server.close().sync();
        }
    }
}
