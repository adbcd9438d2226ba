package io.ringwire.lab.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.ringwire.examples.QuicEchoServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QUIC generator against the examples' QUIC echo server on Ringwire, in process: echoes are reassembled from the
 * streams, counted and byte-checked (a server that corrupts a byte is caught). Nothing here judges speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuicLoadGeneratorTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Echoes a stream's reads, counting them; adds {@code corrupt} to one byte of each read of 40 bytes or more. */
    @ChannelHandler.Sharable
    static final class CountingEcho extends ChannelInboundHandlerAdapter {
        final AtomicLong reads = new AtomicLong();
        private final int corrupt;

        CountingEcho(int corrupt) {
            this.corrupt = corrupt;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            if (b.readableBytes() >= 40) {
                b.setByte(b.readerIndex() + 39, b.getByte(b.readerIndex() + 39) + corrupt);
            }
            reads.incrementAndGet();
            ctx.write(b);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /**
     * The measured window: a peer left unanswered for as long counts as stalled (an error), so it is long enough that
     * a busy machine's pause is not one.
     */
    private static final double WINDOW_SECONDS = 3.0;

    private static LoadGenerator.Result run(CountingEcho echo) throws IOException, InterruptedException {
        Channel server = QuicEchoServer.start("ringwire", ANY_PORT, echo);
        try {
            // 4 connections, 256-byte messages, 8 in flight each; the window (1 s) opens once the server has echoed
            // 100 reads, not after a fixed time: connecting and the first compilations may take long on a slow machine
            return new QuicLoadGenerator((InetSocketAddress) server.localAddress(), 4, 256, 8)
                .run(() -> echo.reads.get() >= 100, WINDOW_SECONDS, () -> { });
        } finally {
            server.close().sync();
            server.eventLoop().parent().shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void countsAndChecksEveryEchoOverQuic() throws Exception {
        LoadGenerator.Result r = run(new CountingEcho(0));
        assertTrue(r.messages() > 0, "echoes counted");
        assertEquals(0, r.mismatches());
        assertEquals(0, r.errors());
        assertTrue(r.latencyNanos().getTotalCount() > 0);
    }

    @Test
    void aCorruptedByteIsCaught() throws Exception {
        LoadGenerator.Result r = run(new CountingEcho(1));
        assertTrue(r.mismatches() > 0, "the changed bytes were found");
    }
}
