package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The smallest end-to-end check: a Ringwire server echoes what a Ringwire client sends. */
class EchoSmokeTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldEchoBetweenRingwireServerAndClient() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(new TrackingEcho(1)).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            byte[] sent = new byte[100_000];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) i;
            }
            ByteBuf received = Unpooled.buffer();
            CompletableFuture<byte[]> done = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf b = (ByteBuf) msg;
                                received.writeBytes(b);
                                b.release();
                                if (received.readableBytes() == sent.length) {
                                    byte[] got = new byte[sent.length];
                                    received.readBytes(got);
                                    done.complete(got);
                                }
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                done.completeExceptionally(cause);
                            }
                        });
                    }
                }).connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, done.get(20, TimeUnit.SECONDS));
            // one loop serves both ends, so its counters saw every byte twice (server in, client in)
            RingwireCounters c = group.next().submit(() -> RingwireCounters.of(server.eventLoop())).get();
            assertNotNull(c);
            assertEquals(1, c.accepts());
            assertEquals(2L * sent.length, c.recvBytes());
            assertEquals(2L * sent.length, c.writeBytes());
            assertTrue(c.enters() > 0 && c.sqes() > 0 && c.cqes() >= c.recvs() + c.writes(), c.toString());
            assertTrue(c.writes() > 0 && c.writeIovecs() >= c.writes(), c.toString());
            assertTrue(c.sqesPerEnter() > 0, c.toString());
            client.close().sync();
            server.close().sync();
            received.release();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
