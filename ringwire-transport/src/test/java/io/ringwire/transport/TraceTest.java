package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code -Dringwire.trace=16}: each channel keeps its last 16 operations, which {@link Ringwire#trace} reads. Runs in a
 * JVM of its own (the surefire execution {@code trace} in this module's pom), as the switch is read once; in any
 * other JVM (e.g. the default execution given {@code -Dtest=TraceTest}) it skips itself, saying so.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TraceTest extends OneLoopTestBase {

    @BeforeAll
    static void tracingIsOn() {
        if (Boolean.getBoolean("ringwire.traceExecution")) {
            assertEquals(16, OpTrace.ENTRIES, "the trace execution runs with -Dringwire.trace=16");
        } else {
            assumeTrue(OpTrace.ON, "runs in the surefire execution 'trace', with -Dringwire.trace=16");
        }
    }

    @Test
    void aConnectionsTraceShowsItsOperationsInOrderWithTheirResults() throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ctx.writeAndFlush(msg);
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try {
            LinkedBlockingQueue<String> echoes = new LinkedBlockingQueue<>();
            Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        echoes.add(b.toString(StandardCharsets.US_ASCII));
                        b.release();
                    }
                }).connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII)).sync();
            assertEquals("ping", echoes.poll(10, TimeUnit.SECONDS));
            List<String> lines = client.close().sync().channel().isOpen() ? List.of()
                : Ringwire.trace(client).get(10, TimeUnit.SECONDS).lines().toList();
            String all = String.join("\n", lines);
            assertInOrder(all, "submit CONNECT", "cqe    CONNECT data=0 res=0", "read()", "submit SEND data=0",
                "cqe    SEND data=0 res=4", "close");
            assertTrue(all.matches("(?s).*cqe    RECV data=\\d+ res=4 buffer=\\d+ more.*"), all);
            assertTrue(lines.stream().allMatch(l -> l.matches(" *\\+\\d+\\.\\d{3} ms  .*")), all);

            for (int i = 0; i < 10; i++) {
                client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
                for (int m = 0; m < 10; m++) {
                    client.writeAndFlush(Unpooled.copiedBuffer("x", StandardCharsets.US_ASCII)).sync();
                }
            }
            String wrapped = Ringwire.trace(client).get(10, TimeUnit.SECONDS);
            assertTrue(wrapped.startsWith("("), wrapped);
            String first = wrapped.lines().findFirst().orElseThrow();
            assertTrue(first.matches("\\(\\d+ earlier entries dropped\\)"), wrapped);
            assertEquals(1 + 16, wrapped.lines().count(), "the last 16 kept: " + wrapped);
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aRefusedConnectIsTracedWithItsErrnosName() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        ChannelFuture f = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter())
            .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).await();
        assertTrue(f.cause() != null, "refused");
        String trace = Ringwire.trace(f.channel()).get(10, TimeUnit.SECONDS);
        assertTrue(trace.contains("cqe    CONNECT data=0 res=-111 (ECONNREFUSED)"), trace);
    }

    @Test
    void onlyRingwiresChannelsHaveOne() {
        EmbeddedChannel other = new EmbeddedChannel();
        assertThrows(IllegalArgumentException.class, () -> Ringwire.trace(other));
        other.finishAndReleaseAll();
    }

    private static void assertInOrder(String text, String... parts) {
        int from = 0;
        for (String part : parts) {
            int at = text.indexOf(part, from);
            assertTrue(at >= 0, () -> "'" + part + "' after position in:\n" + text);
            from = at + part.length();
        }
    }
}
