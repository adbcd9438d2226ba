package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The case of Netty's SocketChannelEOFTest (newer than the testsuite release used here, so written again): a reader
 * with autoRead off, asking for each batch with read() and once pausing for a while, takes 32 MiB from a peer that
 * then shuts its output down; every byte arrives, in order, before the channel goes inactive. The pause is part of
 * the case (the peer finishes and its FIN waits behind the unread bytes); nothing is timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadAllPendingOnEofTest extends OneLoopTestBase {
    private static final int CHUNK = 8 * 1024;
    private static final long PAYLOAD = 32L * 1024 * 1024;
    private static final long PAUSE_AFTER = 128 * 1024;

    private static byte[] chunk() {
        byte[] b = new byte[CHUNK];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    @Test
    void everyBytePendingAtTheEofIsRead() throws Exception {
        byte[] chunk = chunk();
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        for (long left = PAYLOAD; left > 0; left -= CHUNK) {
            sent.update(chunk);
        }
        byte[] expected = sent.digest();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peerDone = CompletableFuture.runAsync(() -> {
                try (Socket s = listener.accept()) {
                    OutputStream out = s.getOutputStream();
                    for (long left = PAYLOAD; left > 0; left -= CHUNK) {
                        out.write(chunk);
                    }
                    s.shutdownOutput();
                    s.getInputStream().read(); // until the reader closes
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            CompletableFuture<byte[]> digest = new CompletableFuture<>();
            long[] received = new long[1];
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(CHUNK))
                .handler(new ChannelInboundHandlerAdapter() {
                    private final MessageDigest got = MessageDigest.getInstance("SHA-256");
                    private ScheduledFuture<?> paused;

                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        ctx.read();
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        received[0] += b.readableBytes();
                        got.update(b.nioBuffer());
                        b.release();
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        if (paused == null && received[0] >= PAUSE_AFTER && received[0] < PAYLOAD) {
                            paused = ctx.executor().schedule(() -> {
                                ctx.read();
                            }, 750, TimeUnit.MILLISECONDS);
                        } else if (ctx.channel().isActive()) {
                            ctx.read();
                        }
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        digest.complete(got.digest());
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        digest.completeExceptionally(cause);
                        ctx.close();
                    }
                }).connect(listener.getLocalSocketAddress()).sync().channel();
            try {
                byte[] got = digest.get(60, TimeUnit.SECONDS);
                assertEquals(PAYLOAD, received[0], "every byte");
                assertArrayEquals(expected, got, "in order");
                peerDone.get(60, TimeUnit.SECONDS);
            } finally {
                ch.close().sync();
            }
        }
    }
}
