package io.ringwire.examples;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The echo handler of Netty's io_uring 0.0.1 announcement (Norman Maurer, 2020,
 * https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html), unchanged: it knows nothing of the
 * transport.
 */
@Sharable
public final class EchoServerHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
