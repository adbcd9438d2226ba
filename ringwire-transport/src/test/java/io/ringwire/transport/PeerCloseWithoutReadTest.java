package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour Netty's native transports share in their DetectPeerCloseWithoutReadTest (netty-transport-native-unix-
 * common-tests, which Netty's epoll and io_uring modules subclass), written again on loopback with more cases: Netty's
 * own (its last published release, 4.2.12) binds its server to every interface, which this project's tests may not.
 * With autoRead off, one message per read and 10-byte buffers, a peer that writes 100 bytes and closes is still seen
 * to close, and every byte arrives first, whether or not the handler asks for more reads. The closing side is the
 * client in one case and the server in the other. With half-closure allowed, the same peer's shutdown of its output is
 * seen as the input's end, every byte first, and the channel stays open.
 */
class PeerCloseWithoutReadTest {
    private static final int BYTES = 100;
    private EventLoopGroup group;

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
    }

    @AfterEach
    void stop() throws InterruptedException {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @ParameterizedTest(name = "handler asks for more reads: {0}")
    @ValueSource(booleans = {false, true})
    void aClientClosingIsSeenByAServerThatDoesNotRead(boolean readsMore) throws Exception {
        CountDownLatch inactive = new CountDownLatch(1);
        AtomicInteger read = new AtomicInteger();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.MAX_MESSAGES_PER_READ, 1)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(BYTES / 10))
            .childHandler(new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new Counting(read, readsMore, inactive));
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try {
            Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            ByteBuf buf = client.alloc().buffer(BYTES).writeZero(BYTES);
            client.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
            assertTrue(inactive.await(10, TimeUnit.SECONDS), "the server's channel sees the client close");
            assertEquals(BYTES, read.get(), "and every byte before it");
        } finally {
            server.close().sync();
        }
    }

    @ParameterizedTest(name = "handler asks for more reads: {0}")
    @ValueSource(booleans = {false, true})
    void aServerClosingIsSeenByAClientThatDoesNotRead(boolean readsMore) throws Exception {
        CountDownLatch inactive = new CountDownLatch(1);
        AtomicInteger read = new AtomicInteger();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    ctx.writeAndFlush(ctx.alloc().buffer(BYTES).writeZero(BYTES))
                        .addListener(ChannelFutureListener.CLOSE);
                    ctx.fireChannelActive();
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        Channel client = null;
        try {
            client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.MAX_MESSAGES_PER_READ, 1)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(BYTES / 10))
                .handler(new Counting(read, readsMore, inactive)).connect(server.localAddress()).sync().channel();
            assertTrue(inactive.await(10, TimeUnit.SECONDS), "the client's channel sees the server close");
            assertEquals(BYTES, read.get(), "and every byte before it");
        } finally {
            if (client != null) {
                client.close().sync();
            }
            server.close().sync();
        }
    }

    /**
     * Vert.x's shape (its NetTest's testHalfCloseCallsEndHandlerAfterBuffersAreDelivered, where Ringwire hung about
     * once in 1,500 connections): reading starts, then the handler pauses it (autoRead off, never a read() after),
     * and the peer writes and closes. The multishot receive still armed takes the bytes, which wait for a read(), and
     * may take the FIN too; the channel must then deliver them and close, as epoll does on EPOLLRDHUP, not wait for
     * a read() that a paused handler makes only once it has seen the close.
     */
    @Test
    void aPeerClosingAfterReadingWasPausedIsSeenWithEveryByte() throws Exception {
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    accepted.add(ch);
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try {
            for (int round = 0; round < 50; round++) {
                CountDownLatch inactive = new CountDownLatch(1);
                CountDownLatch paused = new CountDownLatch(1);
                AtomicInteger read = new AtomicInteger();
                Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                    .handler(new Counting(read, false, inactive) {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            ctx.fireChannelActive();
                            // after the head's read(): the multishot receive is armed when reading pauses
                            ctx.executor().execute(() -> {
                                ctx.channel().config().setAutoRead(false);
                                paused.countDown();
                            });
                        }
                    }).connect(server.localAddress()).sync().channel();
                assertTrue(paused.await(10, TimeUnit.SECONDS));
                Channel peer = accepted.poll(10, TimeUnit.SECONDS);
                assertNotNull(peer, "round " + round + ": accepted");
                peer.writeAndFlush(peer.alloc().buffer(BYTES).writeZero(BYTES))
                    .addListener(ChannelFutureListener.CLOSE);
                assertTrue(inactive.await(10, TimeUnit.SECONDS), "round " + round + ": the client sees the close");
                assertEquals(BYTES, read.get(), "round " + round + ": and every byte before it");
                client.close().sync();
            }
        } finally {
            server.close().sync();
        }
    }

    @Test
    void withHalfClosureTheInputShutdownIsSeenAndTheChannelStaysOpen() throws Exception {
        CountDownLatch inputShutdown = new CountDownLatch(1);
        AtomicInteger read = new AtomicInteger();
        AtomicReference<Channel> accepted = new AtomicReference<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childOption(ChannelOption.MAX_MESSAGES_PER_READ, 1)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(BYTES / 10))
            .childHandler(new SimpleChannelInboundHandler<ByteBuf>() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.set(ctx.channel());
                }

                @Override
                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                    read.addAndGet(msg.readableBytes());
                }

                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt == ChannelInputShutdownEvent.INSTANCE) {
                        inputShutdown.countDown();
                    }
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        try {
            Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            client.writeAndFlush(client.alloc().buffer(BYTES).writeZero(BYTES)).sync();
            ((DuplexChannel) client).shutdownOutput().sync();
            assertTrue(inputShutdown.await(10, TimeUnit.SECONDS), "the server's channel sees the input end");
            assertEquals(BYTES, read.get(), "and every byte before it");
            assertTrue(accepted.get().isOpen(), "half-closed, not closed");
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    /** Counts the bytes read; asks for the next read after each message if {@code readsMore}. */
    private static class Counting extends SimpleChannelInboundHandler<ByteBuf> {
        private final AtomicInteger read;
        private final boolean readsMore;
        private final CountDownLatch inactive;

        Counting(AtomicInteger read, boolean readsMore, CountDownLatch inactive) {
            this.read = read;
            this.readsMore = readsMore;
            this.inactive = inactive;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            read.addAndGet(msg.readableBytes());
            if (readsMore) {
                ctx.read();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive.countDown();
            ctx.fireChannelInactive();
        }
    }
}
