package io.ringwire.lab.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.ringwire.examples.TlsEchoServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The tls-echo workload's load generator: {@code conns} TLS 1.3 connections (Netty's {@code SslHandler}, the engine
 * {@link TlsEchoServer#provider()} picks, the same as the servers') on one Netty epoll event loop (NIO where epoll is
 * missing), each with {@code depth} messages of {@code size} bytes in flight, checked as {@link CheckedEcho} checks
 * them. Every handshake completes before the warm-up starts.
 */
public final class TlsLoadGenerator implements Generator {
    private final InetSocketAddress server;
    private final int conns;
    private final CheckedEcho echo;

    public TlsLoadGenerator(InetSocketAddress server, int conns, int size, int depth) {
        this.echo = new CheckedEcho(size, depth); // checks size and depth
        if (conns < 1) {
            throw new IllegalArgumentException("need conns ≥ 1: " + conns);
        }
        this.server = server;
        this.conns = conns;
    }

    /**
     * @param warmupOver says when the warm-up is over
     * @param seconds    the measured window
     * @param onWindow   called when the window opens and when it closes
     * @return what the window saw
     * @throws IOException          if a connection or its handshake fails
     * @throws InterruptedException if interrupted
     */
    @Override
    public LoadGenerator.Result run(BooleanSupplier warmupOver, double seconds, Runnable onWindow)
        throws IOException, InterruptedException {
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        List<Channel> channels = new ArrayList<>();
        try {
            SslContext tls = SslContextBuilder.forClient().sslProvider(TlsEchoServer.provider())
                .trustManager(InsecureTrustManagerFactory.INSTANCE).protocols("TLSv1.3").build();
            Bootstrap b = new Bootstrap().group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc(), server.getHostString(), server.getPort()),
                            echo.newPeer());
                    }
                });
            for (int i = 0; i < conns; i++) {
                Channel ch = b.connect(server).sync().channel();
                channels.add(ch);
                ch.pipeline().get(SslHandler.class).handshakeFuture().get(30, TimeUnit.SECONDS);
            }
            return echo.run(channels.get(0).eventLoop(), warmupOver, seconds, onWindow);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("TLS connection to " + server + " failed", e.getCause() != null ? e.getCause() : e);
        } finally {
            for (Channel ch : channels) {
                ch.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }
}
