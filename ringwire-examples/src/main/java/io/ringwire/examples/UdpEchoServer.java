package io.ringwire.examples;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/**
 * A UDP echo server: each datagram goes back to its sender. Replies are written as datagrams arrive and flushed once
 * per batch ({@code channelReadComplete}), so on Ringwire one enter carries a batch's replies as it brought its
 * datagrams.
 *
 * <pre>
 * java ... io.ringwire.examples.UdpEchoServer [port] [threads] [transport]   # 127.0.0.1, default 9002, ringwire
 * </pre>
 */
public final class UdpEchoServer {
    private UdpEchoServer() { }

    /**
     * @param args optional port, thread count (unused: one loop serves a datagram channel), transport
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 9002, "UDP echo server", UdpEchoServer::start);
    }

    /**
     * @param transport {@code ringwire}, {@code netty-epoll}, {@code netty-io_uring} or {@code netty-nio}
     * @param address   where to bind
     * @param threads   unused: one event loop serves a datagram channel
     * @return the bound channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        return Transports.startDatagram(transport, address, new Handler());
    }

    /** Echoes each datagram to its sender. */
    @ChannelHandler.Sharable
    static final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            DatagramPacket p = (DatagramPacket) msg;
            ctx.write(new DatagramPacket(p.content(), p.sender()));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
