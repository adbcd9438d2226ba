package io.ringwire.lab;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerSocketChannel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * One competitor's echo server, in its own JVM: {@code LabServer <competitor> <port> <threads>}. Prints
 * {@code READY <port>} once it accepts connections; runs until killed. Binds 127.0.0.1 only.
 */
public final class LabServer {
    private LabServer() { }

    /** The echo logic every Netty-based competitor shares: write what was read, flush once per read batch. */
    @Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
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

    /**
     * @param args competitor label, port, event-loop threads
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        Competitor competitor = Competitor.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        switch (competitor) {
            case BLOCKING_PLATFORM -> blocking(address, false);
            case BLOCKING_VIRTUAL -> blocking(address, true);
            default -> netty(competitor, address, threads);
        }
    }

    private static void netty(Competitor competitor, InetSocketAddress address, int threads) throws Exception {
        IoHandlerFactory factory;
        Class<? extends ServerChannel> channel;
        switch (competitor) {
            case RINGWIRE -> {
                factory = RingwireIoHandler.newFactory();
                channel = RingwireServerSocketChannel.class;
            }
            case NETTY_IO_URING -> {
                factory = IoUringIoHandler.newFactory();
                channel = IoUringServerSocketChannel.class;
            }
            case NETTY_EPOLL -> {
                factory = EpollIoHandler.newFactory();
                channel = EpollServerSocketChannel.class;
            }
            case NETTY_NIO -> {
                factory = NioIoHandler.newFactory();
                channel = NioServerSocketChannel.class;
            }
            default -> throw new IllegalArgumentException(competitor.label());
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, factory);
        new ServerBootstrap().group(group).channel(channel)
            .option(ChannelOption.SO_BACKLOG, 4096)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new EchoHandler())
            .bind(address).sync();
        ready(address.getPort());
        Thread.currentThread().join();
    }

    /** Seed 004's model: a thread per connection, blocking reads and writes (platform or virtual threads). */
    private static void blocking(InetSocketAddress address, boolean virtual) throws IOException {
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(address, 4096);
            ready(address.getPort());
            for (;;) {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                builder.start(() -> echo(s));
            }
        }
    }

    private static void echo(Socket s) {
        byte[] buf = new byte[64 * 1024];
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException closed) {
            // the load generator went away
        }
    }

    private static void ready(int port) {
        System.out.println("READY " + port);
        System.out.flush();
    }
}
