package example.echo;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Netty echo server and client, written for Netty and switched to Ringwire by the three lines README.md shows: the
 * IoHandler factory, the server channel class, the client channel class.
 */
public final class Echo {
    private Echo() { }

    /** Writes back what it reads. */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** @return a group of Ringwire event loops: the first of the three lines */
    public static EventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
    }

    /**
     * Sends {@code message} through an echo server and back, both on {@code group}.
     *
     * @return what came back
     */
    public static byte[] roundTrip(EventLoopGroup group, byte[] message) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new EchoHandler())
            .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        ByteBuf received = Unpooled.buffer();
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                    received.writeBytes(msg);
                    if (received.readableBytes() == message.length) {
                        byte[] bytes = new byte[message.length];
                        received.readBytes(bytes);
                        echoed.complete(bytes);
                    }
                }
            })
            .connect(server.localAddress()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(message)).sync();
        byte[] back = echoed.get(30, TimeUnit.SECONDS);
        client.close().sync();
        server.close().sync();
        return back;
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = newGroup();
        try {
            System.out.println(new String(roundTrip(group, "hello over io_uring".getBytes()), "UTF-8"));
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
