package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush of at least {@link RingwireIoHandlerConfig#inlineWriteMessages()} messages is written at once with
 * sendmsg(2); whatever the socket does not take goes with a SENDMSG. Every byte arrives, in order, whether the socket
 * takes all, part or nothing; listeners run from the inline write may write and flush again; a full socket costs one
 * refused sendmsg per SENDMSG that waits for room, not one per flush. The reader is a plain JDK socket, so only Ringwire's write path is under test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InlineWriteTest {
    private EventLoopGroup group;

    private Channel connect(ServerSocket listener, int inlineWriteMessages, int sendBuffer)
        throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().inlineWriteMessages(inlineWriteMessages).build()));
        Bootstrap b = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter());
        if (sendBuffer > 0) {
            b.option(ChannelOption.SO_SNDBUF, sendBuffer);
        }
        return b.connect(listener.getLocalSocketAddress()).sync().channel();
    }

    private static ServerSocket listener(int receiveBuffer) throws java.io.IOException {
        ServerSocket listener = new ServerSocket();
        if (receiveBuffer > 0) {
            listener.setReceiveBufferSize(receiveBuffer); // inherited by the accepted socket
        }
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        return listener;
    }

    @AfterEach
    void stopLoop() throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static byte[] message(int i, int size) {
        byte[] m = new byte[size];
        for (int k = 0; k < size; k++) {
            m[k] = (byte) (i * 31 + k);
        }
        return m;
    }

    /** Reads on the loop's thread, where the counters are written. */
    private static <T> T onLoop(Channel ch, Callable<T> read) throws Exception {
        return ch.eventLoop().submit(read).get(10, TimeUnit.SECONDS);
    }

    @Test
    void largeFlushGoesInlineAndListenersMayWriteAgain() throws Exception {
        try (ServerSocket listener = listener(0)) {
            Channel ch = connect(listener, 64, 0);
            try (Socket peer = listener.accept()) {
                peer.setSoTimeout(20_000);
                RingwireCounters c = onLoop(ch, () -> RingwireCounters.of(ch.eventLoop()));
                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                byte[] tail = message(1000, 300);
                List<ChannelFuture> writes = new ArrayList<>();
                ChannelFuture[] tailWrite = new ChannelFuture[1];
                ch.eventLoop().submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        byte[] m = message(i, 100 + i);
                        expected.writeBytes(m);
                        ChannelFuture f = ch.write(Unpooled.wrappedBuffer(m));
                        if (i == 0) {
                            // runs inside the inline write's removal: writes and flushes again from there
                            f.addListener(x -> tailWrite[0] = ch.writeAndFlush(Unpooled.wrappedBuffer(tail)));
                        }
                        writes.add(f);
                    }
                    ch.flush();
                }).sync();
                expected.writeBytes(tail);
                byte[] want = expected.toByteArray();
                assertArrayEquals(want, peer.getInputStream().readNBytes(want.length));
                for (ChannelFuture f : writes) {
                    assertTrue(f.sync().isSuccess());
                }
                assertTrue(tailWrite[0].sync().isSuccess());
                assertEquals(1L, (long) onLoop(ch, c::inlineWrites), "the 100-message flush went inline; the tail"
                    + " (one message) did not");
            } finally {
                ch.close().sync();
            }
        }
    }

    @Test
    void smallFlushesAndZeroTurnItOff() throws Exception {
        for (int setting : new int[] {64, 0}) {
            try (ServerSocket listener = listener(0)) {
                Channel ch = connect(listener, setting, 0);
                try (Socket peer = listener.accept()) {
                    peer.setSoTimeout(20_000);
                    int messages = setting == 0 ? 200 : 63;
                    ByteArrayOutputStream expected = new ByteArrayOutputStream();
                    ch.eventLoop().submit(() -> {
                        for (int i = 0; i < messages; i++) {
                            byte[] m = message(i, 50);
                            expected.writeBytes(m);
                            ch.write(Unpooled.wrappedBuffer(m));
                        }
                        ch.flush();
                    }).sync();
                    byte[] want = expected.toByteArray();
                    assertArrayEquals(want, peer.getInputStream().readNBytes(want.length));
                    RingwireCounters c = onLoop(ch, () -> RingwireCounters.of(ch.eventLoop()));
                    assertEquals(0L, (long) onLoop(ch, c::inlineWrites), "inlineWriteMessages=" + setting + ", "
                        + messages + " messages");
                    assertTrue(onLoop(ch, c::writes) >= 1);
                } finally {
                    ch.close().sync();
                }
            }
            stopLoop();
            group = null;
        }
    }

    @Test
    void aFullSocketTakesTheRestWithSendmsgAndIsNotAskedAgainAndAgain() throws Exception {
        int messages = 2560;
        int size = 4096; // 10 MiB in one flush, where both socket buffers were asked for 64 KiB and nobody reads yet
        try (ServerSocket listener = listener(64 * 1024)) {
            Channel ch = connect(listener, 64, 64 * 1024);
            try (Socket peer = listener.accept()) {
                peer.setSoTimeout(20_000);
                RingwireCounters c = onLoop(ch, () -> RingwireCounters.of(ch.eventLoop()));
                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                ChannelFuture last = ch.eventLoop().submit(() -> {
                    ChannelFuture w = null;
                    for (int i = 0; i < messages; i++) {
                        byte[] m = message(i, size);
                        expected.writeBytes(m);
                        w = ch.write(ch.alloc().directBuffer(size).writeBytes(m));
                    }
                    ch.flush();
                    return w;
                }).get(10, TimeUnit.SECONDS);
                byte[] want = expected.toByteArray();
                assertArrayEquals(want, peer.getInputStream().readNBytes(want.length));
                assertTrue(last.sync().isSuccess());
                long inline = onLoop(ch, c::inlineWrites);
                long sendmsgs = onLoop(ch, () -> c.writes() - c.inlineWrites());
                long refused = onLoop(ch, c::inlineWriteAgains);
                // the first gather (1 MiB, maxBytesPerWrite) met an empty socket that could not take it all
                assertTrue(inline >= 1, "the first inline write took what the socket had room for");
                assertTrue(sendmsgs >= 1, "the rest went with SENDMSGs");
                assertTrue(refused <= sendmsgs, "a refused inline write is followed by a SENDMSG, and none is tried "
                    + "while it is in flight: " + refused + " refusals, " + sendmsgs + " SENDMSGs");
                assertEquals((long) want.length, (long) onLoop(ch, c::writeBytes));
            } finally {
                ch.close().sync();
            }
        }
    }
}
