package io.ringwire.lab;

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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QUIC generator against the examples' QUIC echo server on Ringwire, in process: echoes are reassembled from the
 * streams, counted and byte-checked (a server that corrupts a byte is caught). Nothing here judges speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuicLoadGeneratorTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Adds 1 to one byte of every stream read that has 40 bytes or more. */
    @ChannelHandler.Sharable
    static final class Corrupting extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            if (b.readableBytes() >= 40) {
                b.setByte(b.readerIndex() + 39, b.getByte(b.readerIndex() + 39) + 1);
            }
            ctx.write(b);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    private static LoadGenerator.Result run(Channel server) throws IOException, InterruptedException {
        long start = System.nanoTime();
        try {
            // 4 connections, 256-byte messages, 8 in flight each; the window opens after 0.5 s and lasts 1 s
            return new QuicLoadGenerator((InetSocketAddress) server.localAddress(), 4, 256, 8)
                .run(() -> System.nanoTime() - start > 500_000_000L, 1.0, () -> { });
        } finally {
            server.close().sync();
            server.eventLoop().parent().shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void countsAndChecksEveryEchoOverQuic() throws Exception {
        LoadGenerator.Result r = run(QuicEchoServer.start("ringwire", ANY_PORT, 1));
        assertTrue(r.messages() > 0, "echoes counted");
        assertEquals(0, r.mismatches());
        assertEquals(0, r.errors());
        assertTrue(r.latencyNanos().getTotalCount() > 0);
    }

    @Test
    void aCorruptedByteIsCaught() throws Exception {
        LoadGenerator.Result r = run(QuicEchoServer.start("ringwire", ANY_PORT, new Corrupting()));
        assertTrue(r.mismatches() > 0, "the changed bytes were found");
    }
}
