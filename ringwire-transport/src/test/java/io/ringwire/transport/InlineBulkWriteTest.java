package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk stream's echo is written at once when its read loop ends (one sendmsg, {@link RingwireCounters#inlineWrites()})
 * and every byte comes back once and in order: also when a listener of the written buffers' promises flushes (it must
 * not send the bytes the inline write already sent) or closes the channel (what was sent is settled as written, what
 * comes back is a prefix of the stream). The peer is a plain JDK socket. On fds and on direct descriptors (the
 * transport's second surefire run).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InlineBulkWriteTest {
    private static final int BYTES = 8 * 1024 * 1024;

    private static byte expected(long position) {
        return (byte) (position * 31 + (position >>> 11));
    }

    /** Echoes each buffer; {@code onWritten} runs in the listener of each echo's promise. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        final AtomicInteger written = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        private final BiConsumer<ChannelHandlerContext, Integer> onWritten;

        Echo(BiConsumer<ChannelHandlerContext, Integer> onWritten) {
            this.onWritten = onWritten;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg).addListener(f -> {
                if (f.isSuccess()) {
                    onWritten.accept(ctx, written.incrementAndGet());
                } else {
                    failed.incrementAndGet();
                }
            });
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Sends the stream from a thread of its own and reads what comes back, checking each byte's place. */
    private static long sendAndCheck(Socket peer, long[] mismatches) throws Exception {
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = peer.getOutputStream();
                byte[] chunk = new byte[256 * 1024];
                for (long pos = 0; pos < BYTES; pos += chunk.length) {
                    for (int i = 0; i < chunk.length; i++) {
                        chunk[i] = expected(pos + i);
                    }
                    out.write(chunk);
                }
                out.flush();
            } catch (IOException e) {
                // the server closed the connection (the closing case): the reader sees how far it got
            }
        });
        InputStream in = peer.getInputStream();
        byte[] buf = new byte[64 * 1024];
        long pos = 0;
        try {
            int n;
            while (pos < BYTES && (n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++, pos++) {
                    if (buf[i] != expected(pos)) {
                        mismatches[0]++;
                    }
                }
            }
        } catch (IOException e) {
            // reset by the closing server: what came before it is checked
        }
        sender.get(30, TimeUnit.SECONDS);
        return pos;
    }

    private static RingwireCounters run(Echo echo, long[] mismatches, long[] received) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().initialBufferRingEntries(1024).build()));
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class).handler(echo)
                .connect(server.getLocalSocketAddress()).sync().channel();
            RingwireCounters counters = RingwireCounters.of(ch.eventLoop());
            try (Socket peer = server.accept()) {
                // a guard against a hang only: a stalled echo ends the read (the bytes short of BYTES fail the test)
                // instead of blocking past JUnit's timeout, which cannot interrupt a socket read
                peer.setSoTimeout(120_000);
                received[0] = sendAndCheck(peer, mismatches);
            } finally {
                ch.close().sync();
            }
            return counters;
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @ParameterizedTest(name = "listener flushes: {0}")
    @ValueSource(booleans = {false, true})
    void aBulkEchoIsWrittenAtOnceAndEveryByteComesBackOnceInOrder(boolean listenerFlushes) throws Exception {
        Echo echo = new Echo((ctx, n) -> {
            if (listenerFlushes) {
                ctx.flush(); // inside the inline write's removal of its buffers
            }
        });
        long[] mismatches = new long[1];
        long[] received = new long[1];
        RingwireCounters counters = run(echo, mismatches, received);
        assertEquals(BYTES, received[0], "every byte came back");
        assertEquals(0, mismatches[0], "none repeated, lost or reordered");
        assertTrue(counters.inlineWrites() > 0, counters::toString);
        assertEquals(0, echo.failed.get(), "no write failed");
    }

    @ParameterizedTest(name = "close after {0} buffers written")
    @ValueSource(ints = {1, 40})
    void aListenerThatClosesWhileAnInlineWriteSettlesLeavesAPrefixOfTheStream(int closeAfter) throws Exception {
        Echo echo = new Echo((ctx, n) -> {
            if (n == closeAfter) {
                ctx.close();
            }
        });
        long[] mismatches = new long[1];
        long[] received = new long[1];
        RingwireCounters counters = run(echo, mismatches, received);
        assertEquals(0, mismatches[0], "what came back is the stream's beginning, nothing repeated");
        assertTrue(echo.written.get() >= closeAfter, () -> "written: " + echo.written.get());
    }
}
