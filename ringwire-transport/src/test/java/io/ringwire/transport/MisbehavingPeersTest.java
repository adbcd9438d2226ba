package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Peers that do not play by the rules: one that resets the connection in the middle of a large write, one that never
 * reads, and thousands that send a request one byte at a time and never finish it (slowloris).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MisbehavingPeersTest extends OneLoopTestBase {
    @Test
    void aResetInTheMiddleOfALargeWriteFailsItAndFreesEverything() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        // expected: the reset
                    }
                }).connect(listener.getLocalSocketAddress()).sync().channel();
            Socket peer = listener.accept();
            List<ByteBuf> written = new ArrayList<>();
            List<ChannelFuture> writes = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                ByteBuf b = ch.alloc().directBuffer(1024 * 1024).writeZero(1024 * 1024);
                written.add(b.retain()); // one reference of our own, to see the transport give its back
                writes.add(ch.write(b));
            }
            ch.flush();
            InputStream in = peer.getInputStream();
            byte[] some = new byte[100_000];
            int got = 0;
            while (got < some.length) {
                got += in.read(some, got, some.length - got);
            }
            peer.setSoLinger(true, 0);
            peer.close(); // RST while 60-odd MiB are still to go
            for (ChannelFuture f : writes) {
                f.await(20, TimeUnit.SECONDS);
                assertTrue(f.isDone());
            }
            ChannelFuture last = writes.get(writes.size() - 1);
            assertFalse(last.isSuccess(), "the write the reset cut off failed");
            assertInstanceOf(IOException.class, last.cause(), () -> String.valueOf(last.cause()));
            ch.close().sync();
            for (ByteBuf b : written) {
                assertEquals(1, b.refCnt(), "the transport gave back its reference to every buffer");
                b.release();
            }
        }
    }

    @Test
    void aPeerThatNeverReadsKeepsOutboundMemoryUnderTheHighWaterMark() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            int low = 32 * 1024;
            int high = 64 * 1024;
            int size = 8 * 1024;
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(low, high))
                .handler(new ChannelInboundHandlerAdapter()).connect(listener.getLocalSocketAddress()).sync()
                .channel();
            try (Socket peer = listener.accept()) {
                // write while writable, as a well-behaved handler does, round after round, until a round finds the
                // channel still not writable: the kernel's buffers are full and nothing more leaves
                AtomicInteger messages = new AtomicInteger();
                List<ChannelFuture> writes = new ArrayList<>();
                long maxPending = 0;
                int wrote = -1;
                for (int round = 0; round < 10_000 && wrote != 0; round++) {
                    wrote = ch.eventLoop().submit(() -> {
                        int n = 0;
                        while (ch.isWritable()) {
                            writes.add(ch.writeAndFlush(Unpooled.directBuffer(size).writeZero(size)));
                            n++;
                        }
                        return n;
                    }).get();
                    messages.addAndGet(wrote);
                    maxPending = Math.max(maxPending, ch.eventLoop().submit(() ->
                        ch.unsafe().outboundBuffer().totalPendingWriteBytes()).get());
                }
                assertEquals(0, wrote, "writing stopped: the channel stayed unwritable (" + messages + " messages)");
                assertTrue(maxPending <= high + size, "outbound bytes stayed under the high water mark: " + maxPending);
                ch.close().sync();
                for (ChannelFuture f : writes) {
                    assertTrue(f.await(10, TimeUnit.SECONDS), "every write finished, written or failed");
                }
                assertFalse(ch.isOpen());
            }
        }
    }

    @ChannelHandler.Sharable
    private static final class LineEcho extends ChannelInboundHandlerAdapter {
        final AtomicInteger active = new AtomicInteger();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.incrementAndGet();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf line = (ByteBuf) msg; // without its '\n': the decoder strips it
            ByteBuf answer = ctx.alloc().directBuffer(line.readableBytes() + 1).writeBytes(line).writeByte('\n');
            line.release();
            ctx.writeAndFlush(answer);
        }
    }

    @Test
    void slowlorisOnThousandsOfConnectionsDoesNotStopAWellBehavedClient() throws Exception {
        int connections = 2000;
        LineEcho echo = new LineEcho();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 4096)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new LineBasedFrameDecoder(1024), echo);
                }
            }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        List<Socket> slow = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                slow.add(new Socket(InetAddress.getLoopbackAddress(), port));
            }
            // a request that never ends, one byte per connection at a time
            for (int round = 0; round < 20; round++) {
                for (Socket s : slow) {
                    s.getOutputStream().write('x');
                }
                try (Socket good = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    good.setSoTimeout(30_000);
                    good.getOutputStream().write(("hello " + round + "\n").getBytes(StandardCharsets.US_ASCII));
                    byte[] answer = good.getInputStream().readNBytes(("hello " + round + "\n").length());
                    assertEquals("hello " + round + "\n", new String(answer, StandardCharsets.US_ASCII));
                }
            }
            assertEquals(connections + 20, echo.active.get(), "every connection was accepted and kept");
        } finally {
            for (Socket s : slow) {
                s.close();
            }
            server.close().sync();
        }
    }
}
