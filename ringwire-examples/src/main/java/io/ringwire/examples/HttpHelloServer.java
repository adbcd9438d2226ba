package io.ringwire.examples;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * "Hello, World!" over HTTP/1.1, as in the TechEmpower plaintext test: Netty's {@link HttpServerCodec}, keep-alive,
 * pipelined requests answered in order, responses flushed once per read (channelReadComplete). The lab's
 * {@code http} workload starts it on every transport and drives it with wrk.
 */
public final class HttpHelloServer {
    /** The body of every response. */
    public static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    private HttpHelloServer() { }

    /**
     * @param args optional port (default 8080), thread count (1) and transport (ringwire)
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 8080, "http server", HttpHelloServer::start);
    }

    /**
     * @param transport one of {@link Transports#NAMES}
     * @param address   where to listen
     * @param threads   event-loop threads
     * @return the bound server channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        Hello hello = new Hello();
        return Transports.startServer(transport, address, threads, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new HttpServerCodec(), hello);
            }
        });
    }

    /** Answers every request with {@link #BODY}; the request's content (none, for GET) is dropped. */
    @ChannelHandler.Sharable
    static final class Hello extends ChannelInboundHandlerAdapter {
        private static final ByteBuf CONTENT = Unpooled.unreleasableBuffer(Unpooled.directBuffer(BODY.length)
            .writeBytes(BODY)).asReadOnly();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest request) {
                    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                        HttpResponseStatus.OK, CONTENT.duplicate());
                    response.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
                    if (HttpUtil.isKeepAlive(request)) {
                        if (!request.protocolVersion().isKeepAliveDefault()) {
                            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                        }
                        ctx.write(response, ctx.voidPromise());
                    } else {
                        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a malformed request or a reset peer: this connection ends, the server goes on
        }
    }
}
