package io.ringwire.transport.fallback;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.ringwire.transport.BestTransport;
import io.ringwire.transport.Ringwire;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The application a newcomer writes from the guide, run in the child JVM: a Netty echo server on loopback on
 * {@link Ringwire#bestTransport()}, and a client of it on the same transport. Prints {@code key=value} lines: Ringwire's
 * unavailability cause, the transport chosen and its reason, the domain socket classes, and what the echo answered.
 */
public final class FallbackEchoApp {
    private FallbackEchoApp() { }

    public static void main(String[] args) throws Exception {
        Throwable cause = Ringwire.unavailabilityCause();
        System.out.println("cause=" + (cause == null ? "none" : cause.getMessage()));
        BestTransport transport = Ringwire.bestTransport();
        System.out.println("kind=" + transport.kind());
        System.out.println("reason=" + transport.reason());
        System.out.println("domain=" + transport.domainSocketChannelClass());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(transport.serverSocketChannelClass())
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            System.out.println("server=" + server.getClass().getSimpleName());
            CompletableFuture<String> answer = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(transport.socketChannelClass())
                .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                    private final StringBuilder got = new StringBuilder();

                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                        got.append(msg.toString(StandardCharsets.US_ASCII));
                        if (got.length() >= 5) {
                            answer.complete(got.toString());
                        }
                    }
                })
                .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();
            System.out.println("echo=" + answer.get(60, TimeUnit.SECONDS));
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        System.out.flush();
        System.exit(0);
    }
}
