package io.ringwire.examples;

import io.netty.channel.Channel;

import java.net.InetSocketAddress;

/**
 * The echo server of Netty's io_uring 0.0.1 announcement (Norman Maurer, 2020,
 * https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html) on Ringwire: one event-loop thread serves
 * accept and I/O. Against Netty's own version, two things change, the IoHandler factory and the server channel
 * class; the handler is the same.
 *
 * <pre>
 * ./ringwire echo-server [port] [threads] [transport]   # 127.0.0.1, default 9000, 1 thread, ringwire
 * </pre>
 * {@code transport} is {@code ringwire}, {@code netty-epoll}, {@code netty-io_uring} or {@code netty-nio}: the same
 * program on each, for side-by-side runs.
 * On SIGTERM/Ctrl-C it prints the loop's counters (enters, SQEs and CQEs per enter, bytes per recv, ...).
 */
public final class EchoServer {
    private EchoServer() { }

    /**
     * @param args optional port and thread count
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 9000, "echo server", EchoServer::start);
    }

    /**
     * Starts the echo server on one of the Netty-based transports; the lab's servers start here too.
     *
     * @param transport {@code ringwire}, {@code netty-epoll}, {@code netty-io_uring} or {@code netty-nio}
     * @param address   where to listen
     * @param threads   event-loop threads (accept and I/O share them)
     * @return the bound server channel; its event loop's parent is the group to shut down
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        return Transports.startServer(transport, address, threads, new EchoServerHandler());
    }
}
