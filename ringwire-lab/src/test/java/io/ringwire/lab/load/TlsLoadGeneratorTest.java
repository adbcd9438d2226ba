package io.ringwire.lab.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelId;
import io.ringwire.examples.TlsEchoServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TLS generator against the examples' TLS echo server on Ringwire, in process: every connection keeps its
 * messages going (none stalls after its first burst), echoes are counted and byte-checked (a server that corrupts a
 * byte is caught), and a server that stops answering is an error per connection, not a slow run. Nothing here judges
 * speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsLoadGeneratorTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int CONNS = 4;
    private static final int SIZE = 256;
    private static final int DEPTH = 8;

    /** Echoes what TLS decrypted, counting bytes per connection; adds {@code corrupt} to byte 39 of big reads. */
    @ChannelHandler.Sharable
    static final class CountingEcho extends ChannelInboundHandlerAdapter {
        final Map<ChannelId, AtomicLong> bytes = new ConcurrentHashMap<>();
        final AtomicLong reads = new AtomicLong();
        private final int corrupt;

        CountingEcho(int corrupt) {
            this.corrupt = corrupt;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            bytes.computeIfAbsent(ctx.channel().id(), id -> new AtomicLong()).addAndGet(b.readableBytes());
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

    private static LoadGenerator.Result run(CountingEcho echo) throws Exception {
        Channel server = TlsEchoServer.start("ringwire", ANY_PORT, 1, echo);
        try {
            // the window opens once the server has echoed 100 reads: connecting, handshakes and the first
            // compilations may take long on a slow machine
            return new TlsLoadGenerator((InetSocketAddress) server.localAddress(), CONNS, SIZE, DEPTH)
                .run(() -> echo.reads.get() >= 100, WINDOW_SECONDS, () -> { });
        } finally {
            server.close().sync();
            server.eventLoop().parent().shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void everyConnectionKeepsEchoingAndEveryByteIsChecked() throws Exception {
        CountingEcho echo = new CountingEcho(0);
        LoadGenerator.Result r = run(echo);
        assertTrue(r.messages() > 0, "echoes counted");
        assertEquals(0, r.mismatches());
        assertEquals(0, r.errors());
        assertEquals(CONNS, echo.bytes.size(), "every connection sent");
        echo.bytes.forEach((id, n) -> assertTrue(n.get() > (long) SIZE * DEPTH,
            "connection " + id + " went on past its first " + DEPTH + " messages: " + n.get() + " B"));
    }

    @Test
    void aServerThatStopsAnsweringIsAnErrorPerConnection() throws Exception {
        Channel server = TlsEchoServer.start("ringwire", ANY_PORT, 1, new Swallow());
        try {
            LoadGenerator.Result r = new TlsLoadGenerator((InetSocketAddress) server.localAddress(), CONNS, SIZE,
                DEPTH).run(() -> true, 0.5, () -> { });
            assertEquals(CONNS, r.errors(), "each connection waited through the whole window");
            assertEquals(0, r.messages());
        } finally {
            server.close().sync();
            server.eventLoop().parent().shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Reads and answers nothing, the connection left open. */
    @ChannelHandler.Sharable
    static final class Swallow extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
        }
    }

    @Test
    void aCorruptedByteIsCaught() throws Exception {
        LoadGenerator.Result r = run(new CountingEcho(1));
        assertTrue(r.mismatches() > 0, "the changed bytes were found");
    }
}
