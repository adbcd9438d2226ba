package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.IoUringConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each switch of {@link RingwireIoHandlerConfig} does what it says: the ring is set up without the feature, or the
 * channels take the other path. (Netty's echo and autoRead tests run with each switch off in the testsuite package.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FeatureSwitchesTest {
    private static final int MESSAGES = 100;
    private static final int SIZE = 200;

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Runs a ping-pong of {@link #MESSAGES} byte-checked messages and a 1 MiB burst; returns the server's handler. */
    private static void pingPong(UnaryOperator<RingwireIoHandlerConfig.Builder> switches, Check check)
        throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            switches.apply(RingwireIoHandlerConfig.builder()).build()));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(new Echo()).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync()
                .channel();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                s.setSoTimeout(30_000);
                s.setTcpNoDelay(true);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                byte[] m = new byte[SIZE];
                for (int i = 0; i < MESSAGES; i++) {
                    for (int j = 0; j < SIZE; j++) {
                        m[j] = (byte) (i * 3 + j);
                    }
                    out.write(m);
                    assertArrayEquals(m, in.readNBytes(SIZE), "message " + i);
                }
                byte[] burst = new byte[1024 * 1024];
                for (int j = 0; j < burst.length; j++) {
                    burst[j] = (byte) (j * 7 + (j >>> 9));
                }
                Thread writer = Thread.ofVirtual().start(() -> {
                    try {
                        out.write(burst);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                assertArrayEquals(burst, in.readNBytes(burst.length), "the burst");
                writer.join();
            }
            RingwireIoHandler handler = server.eventLoop().submit(() ->
                ((AbstractRingwireChannel) server).registration.handler()).get();
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            server.eventLoop().submit(() -> check.verify(handler, counters)).get();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private interface Check {
        void verify(RingwireIoHandler handler, RingwireCounters counters);
    }

    @Test
    void defaultsUseEveryFeature() throws Exception {
        pingPong(b -> b, (h, c) -> {
            int flags = h.setupFlags();
            assertTrue((flags & IoUringConstants.IORING_SETUP_DEFER_TASKRUN) != 0, "DEFER_TASKRUN");
            assertTrue((flags & IoUringConstants.IORING_SETUP_SINGLE_ISSUER) != 0, "SINGLE_ISSUER");
            assertTrue((flags & IoUringConstants.IORING_SETUP_NO_SQARRAY) != 0, "NO_SQARRAY");
            assertTrue(h.ringFdRegistered(), "ring fd registered");
            assertTrue(h.receiveBuffers().bufferRing() != null, "buffer ring");
            assertTrue(c.directRecvs() > 0, () -> "the burst went direct: " + c);
            assertTrue(c.fixedFileSlots() > 0, () -> "a fixed-file table: " + c);
            // multishot: the ping-pong's receives need no re-arm, so fewer SQEs than receives plus writes
            assertTrue(c.sqes() < c.recvs() + c.writes(), c::toString);
        });
    }

    @Test
    void deferTaskrunOff() throws Exception {
        pingPong(b -> b.deferTaskrun(false), (h, c) -> {
            assertEquals(0, h.setupFlags() & IoUringConstants.IORING_SETUP_DEFER_TASKRUN);
            assertTrue((h.setupFlags() & IoUringConstants.IORING_SETUP_COOP_TASKRUN) != 0, "COOP_TASKRUN instead");
        });
    }

    @Test
    void singleIssuerOff() throws Exception {
        pingPong(b -> b.singleIssuer(false), (h, c) -> {
            assertEquals(0, h.setupFlags() & IoUringConstants.IORING_SETUP_SINGLE_ISSUER);
            assertEquals(0, h.setupFlags() & IoUringConstants.IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN needs it");
        });
    }

    @Test
    void noSqArrayOff() throws Exception {
        pingPong(b -> b.noSqArray(false),
            (h, c) -> assertEquals(0, h.setupFlags() & IoUringConstants.IORING_SETUP_NO_SQARRAY));
    }

    @Test
    void registerRingFdOff() throws Exception {
        pingPong(b -> b.registerRingFd(false), (h, c) -> assertFalse(h.ringFdRegistered()));
    }

    @Test
    void multishotRecvOff() throws Exception {
        // every receive completion needs a new RECV SQE
        pingPong(b -> b.multishotRecv(false), (h, c) -> assertTrue(c.sqes() >= c.recvs() + c.writes(),
            c::toString));
    }

    @Test
    void bufferRingOff() throws Exception {
        pingPong(b -> b.bufferRing(false), (h, c) -> {
            assertNull(h.receiveBuffers().bufferRing(), "no ring registered");
            assertTrue(c.recvs() > 0 && c.directRecvs() >= c.recvs(), () -> "every receive direct: " + c);
        });
    }

    @Test
    void fixedFilesOff() throws Exception {
        pingPong(b -> b.fixedFiles(0), (h, c) -> {
            assertEquals(0, c.fixedFileSlots(), c::toString);
            assertEquals(0, c.fixedFiles(), c::toString);
        });
    }

    @Test
    void directReceiveOff() throws Exception {
        pingPong(b -> b.directReceive(false), (h, c) -> assertEquals(0, c.directRecvs(), c::toString));
    }
}
