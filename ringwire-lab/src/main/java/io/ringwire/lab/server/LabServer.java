package io.ringwire.lab.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.ringwire.examples.EchoServer;
import io.ringwire.examples.EchoServerHandler;
import io.ringwire.examples.HttpHelloServer;
import io.ringwire.examples.RedisServer;
import io.ringwire.examples.Transports;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One competitor's server, in its own JVM: {@code LabServer <competitor> <port> <threads> <protocol>}. Prints
 * {@code READY <port>} once it accepts connections, then answers {@code RESET} and {@code STATS} lines on stdin
 * (see {@link ServerStats}); runs until killed. Binds the loopback address only.
 */
public final class LabServer {
    /** Frames longer than this close the connection: a framing error, not a workload. */
    public static final int MAX_FRAME = 1 << 20;

    private LabServer() { }

    /**
     * @param args competitor label, port, event-loop threads, protocol (echo, frames, redis)
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        Competitor competitor = Competitor.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Protocol protocol = args.length > 3 ? Protocol.valueOf(args[3].toUpperCase(Locale.ROOT)) : Protocol.ECHO;
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        ServerStats stats = new ServerStats();
        switch (competitor) {
            case BLOCKING_PLATFORM -> blocking(address, protocol, false, stats);
            case BLOCKING_VIRTUAL -> blocking(address, protocol, true, stats);
            case VERTX_RINGWIRE, VERTX_IO_URING, VERTX_EPOLL -> vertx(competitor, address, threads, protocol, stats);
            case WEBFLUX_RINGWIRE, WEBFLUX_EPOLL -> webflux(competitor, address, threads, protocol, stats);
            default -> netty(competitor, address, threads, protocol, stats);
        }
    }

    private static void netty(Competitor competitor, InetSocketAddress address, int threads, Protocol protocol,
                              ServerStats stats) throws Exception {
        // the examples' programs; only the transport differs between competitors
        ServerStats.nettyUsed = true;
        if (protocol == Protocol.MIXED) {
            mixed(competitor.transport(), address, threads, stats);
        } else {
            start(competitor.transport(), protocol, address, threads);
            stats.serve(address.getPort()); // until the lab goes; then it ends this process
        }
    }

    /** @return the bound server channel of the example that speaks {@code protocol} */
    private static Channel start(String transport, Protocol protocol, InetSocketAddress address, int threads)
        throws InterruptedException {
        return switch (protocol) {
            case ECHO -> EchoServer.start(transport, address, threads);
            case REDIS -> RedisServer.start(transport, address, threads);
            case HTTP -> HttpHelloServer.start(transport, address, threads);
            case UDP_ECHO -> io.ringwire.examples.UdpEchoServer.start(transport, address, threads);
            case QUIC -> io.ringwire.examples.QuicEchoServer.start(transport, address, threads);
            case TLS_ECHO -> io.ringwire.examples.TlsEchoServer.start(transport, address, threads);
            case FILES -> io.ringwire.examples.FileServer.start(transport, address, threads);
            case DOMAIN_ECHO -> Transports.startDomainServer(transport,
                deletedOnExit(Protocol.domainSocketPath(address.getPort())), threads, new EchoServerHandler());
            case FRAMES, PAUSING -> frames(transport, address, threads, protocol == Protocol.PAUSING);
            case MIXED -> throw new IllegalArgumentException("MIXED starts several servers: mixed()");
        };
    }

    private static Channel frames(String transport, InetSocketAddress address, int threads, boolean pausing)
        throws InterruptedException {
        return Transports.startServer(transport, address, threads, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4),
                    pausing ? new PausingEchoHandler() : new EchoServerHandler());
            }
        });
    }

    /**
     * {@link Protocol#MIXED}: the soak's server, every channel type of the transport in one process and on the same
     * event loop(s), as an application serving several protocols runs them (one ring, one buffer ring, for all); the
     * READY line names the ports of all but the main one.
     */
    private static void mixed(String transport, InetSocketAddress address, int threads, ServerStats stats)
        throws InterruptedException {
        InetSocketAddress any = new InetSocketAddress(address.getAddress(), 0);
        io.netty.channel.EventLoopGroup group = Transports.newGroup(transport, threads);
        Map<String, Channel> others;
        try {
            others = Transports.onGroup(group, () -> {
                frames(transport, address, threads, false);
                Transports.startDomainServer(transport, deletedOnExit(Protocol.domainSocketPath(address.getPort())),
                    threads, new EchoServerHandler());
                Map<String, Channel> m = new java.util.LinkedHashMap<>();
                m.put("udp", io.ringwire.examples.UdpEchoServer.start(transport, any, threads));
                m.put("files", io.ringwire.examples.FileServer.start(transport, any, threads));
                m.put("tls", io.ringwire.examples.TlsEchoServer.start(transport, any, threads));
                m.put("quic", io.ringwire.examples.QuicEchoServer.start(transport, any, threads));
                return m;
            });
        } catch (Throwable e) { // a failed bind's cause too, which sync() rethrows unchecked (EADDRINUSE...)
            group.shutdownGracefully(); // its loops would keep this process alive, and the lab waiting for READY
            throw e;
        }
        StringBuilder ports = new StringBuilder();
        others.forEach((name, ch) -> ports.append(' ').append(name).append('=')
            .append(((InetSocketAddress) ch.localAddress()).getPort()));
        stats.serve(address.getPort(), ports.toString().strip());
    }

    /**
     * Vert.x's HTTP server on one of its transports, {@code threads} event loops, answering every request with
     * {@link HttpHelloServer#BODY} as text/plain (Vert.x writes its headers in its own order).
     */
    private static void vertx(Competitor competitor, InetSocketAddress address, int threads, Protocol protocol,
                              ServerStats stats) throws Exception {
        if (protocol != Protocol.HTTP) {
            throw new IllegalArgumentException(competitor.label() + " serves the http workload only");
        }
        io.vertx.core.transport.Transport transport = switch (competitor) {
            case VERTX_RINGWIRE -> io.ringwire.vertx.RingwireTransport.RINGWIRE;
            case VERTX_IO_URING -> io.vertx.core.transport.Transport.IO_URING;
            default -> io.vertx.core.transport.Transport.EPOLL;
        };
        if (transport == null || !transport.available()) {
            throw new IllegalStateException(competitor.label() + ": Vert.x's transport is unavailable: "
                + (transport == null ? "not on the class path" : transport.unavailabilityCause()));
        }
        ServerStats.nettyUsed = true;
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.builder()
            .with(new io.vertx.core.VertxOptions().setEventLoopPoolSize(threads))
            .withTransport(transport).build();
        io.vertx.core.buffer.Buffer body = io.vertx.core.buffer.Buffer.buffer(HttpHelloServer.BODY);
        vertx.createHttpServer(new io.vertx.core.http.HttpServerOptions().setTcpNoDelay(true))
            .requestHandler(req -> req.response().putHeader("content-type", "text/plain").end(body))
            .listen(address.getPort(), address.getHostString())
            .toCompletionStage().toCompletableFuture().get();
        stats.serve(address.getPort()); // until the lab closes our stdin or ends this process
    }

    /** A Spring Boot WebFlux application's "Hello, World!" ({@link WebFluxHelloServer}), {@code threads} event loops. */
    private static void webflux(Competitor competitor, InetSocketAddress address, int threads, Protocol protocol,
                                ServerStats stats) {
        if (protocol != Protocol.HTTP) {
            throw new IllegalArgumentException(competitor.label() + " serves the http workload only");
        }
        ServerStats.nettyUsed = true;
        WebFluxHelloServer.start(competitor == Competitor.WEBFLUX_RINGWIRE, address, threads);
        stats.serve(address.getPort()); // until the lab closes our stdin or ends this process
    }

    /** Echoes each frame with autoRead off until its echo is written: back-pressure per message. */
    @ChannelHandler.Sharable
    static final class PausingEchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel ch = ctx.channel();
            ch.config().setAutoRead(false);
            ctx.writeAndFlush(msg).addListener(f -> ch.config().setAutoRead(true));
        }
    }

    /** Tyma's test's model: a thread per connection, blocking reads and writes (platform or virtual threads). */
    private static void blocking(InetSocketAddress address, Protocol protocol, boolean virtual, ServerStats stats)
        throws IOException {
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        if (protocol == Protocol.UDP_ECHO) {
            udpEcho(address, builder, stats);
            return;
        }
        if (protocol == Protocol.DOMAIN_ECHO) {
            domainEcho(deletedOnExit(Protocol.domainSocketPath(address.getPort())), builder, stats,
                address.getPort());
            return;
        }
        Map<String, byte[]> store = new ConcurrentHashMap<>();
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(address, 4096);
            Thread.ofPlatform().daemon(true).name("lab-stats").start(() -> stats.serve(address.getPort()));
            for (;;) {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                builder.start(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        switch (protocol) {
                            case ECHO -> echo(in, out);
                            case FILES -> files(in, out);
                            case FRAMES, PAUSING -> frames(in, out);
                            case REDIS -> redis(in, out, store);
                            case HTTP -> http(in, out);
                        }
                    } catch (IOException closed) {
                        // the load generator went away, or sent something malformed
                    }
                });
            }
        }
    }

    /** The socket file, removed when this server process ends (the lab ends it with SIGTERM). */
    private static java.nio.file.Path deletedOnExit(java.nio.file.Path path) {
        path.toFile().deleteOnExit();
        return path;
    }

    /** A thread per connection on a blocking Unix domain server socket. */
    private static void domainEcho(java.nio.file.Path path, Thread.Builder builder, ServerStats stats, int port)
        throws IOException {
        java.nio.file.Files.deleteIfExists(path);
        java.nio.channels.ServerSocketChannel server =
            java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        server.bind(java.net.UnixDomainSocketAddress.of(path), 4096);
        Thread.ofPlatform().daemon(true).name("lab-stats").start(() -> stats.serve(port));
        for (;;) {
            java.nio.channels.SocketChannel s = server.accept();
            builder.start(() -> {
                try (s; InputStream in = java.nio.channels.Channels.newInputStream(s);
                     OutputStream out = java.nio.channels.Channels.newOutputStream(s)) {
                    echo(in, out);
                } catch (IOException closed) {
                    // the load generator went away
                }
            });
        }
    }

    /** One thread (platform or virtual) receiving and sending on a blocking DatagramSocket. */
    private static void udpEcho(InetSocketAddress address, Thread.Builder builder, ServerStats stats)
        throws IOException {
        java.net.DatagramSocket socket = new java.net.DatagramSocket(null);
        socket.setReceiveBufferSize(4 << 20);
        socket.setSendBufferSize(4 << 20);
        socket.bind(address);
        builder.start(() -> {
            byte[] buf = new byte[64 * 1024];
            java.net.DatagramPacket p = new java.net.DatagramPacket(buf, buf.length);
            try {
                for (;;) {
                    p.setLength(buf.length);
                    socket.receive(p);
                    socket.send(p); // back to its sender (the packet's address is the sender's)
                }
            } catch (IOException closed) {
                // the process is ending
            }
        });
        stats.serve(address.getPort());
    }

    /** Answers each 9-byte request with the file of that size, copied (the blocking model has no FileRegion). */
    private static void files(InputStream in, OutputStream out) throws IOException {
        java.io.DataInputStream requests = new java.io.DataInputStream(in);
        java.nio.channels.WritableByteChannel sink = java.nio.channels.Channels.newChannel(out);
        for (;;) {
            long size = requests.readLong();
            requests.readByte();
            try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(
                io.ringwire.examples.FileServer.file(size).toPath())) {
                for (long at = 0; at < size; ) {
                    at += f.transferTo(at, size - at, sink);
                }
            }
            out.flush();
        }
    }

    /**
     * Echoes with a buffer that starts at 8 KiB and doubles, up to 64 KiB, each time a read fills it (as Netty's
     * adaptive allocator grows its reads): bulk streams get large reads, and thousands of mostly idle connections do
     * not hold 64 KiB each (the conns workload).
     */
    public static void echo(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[8 * 1024];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            if (n == buf.length && buf.length < 64 * 1024) {
                buf = new byte[buf.length * 2];
            }
        }
    }

    /** Frame by frame, like the Netty servers' decoder; written back in one write once no more input is waiting. */
    static void frames(InputStream rawIn, OutputStream rawOut) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(rawIn, 64 * 1024));
        OutputStream out = new BufferedOutputStream(rawOut, 64 * 1024);
        byte[] frame = new byte[1024];
        for (;;) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException end) {
                return;
            }
            if (length < 0 || length > MAX_FRAME) {
                throw new IOException("bad frame length " + length);
            }
            if (frame.length < length) {
                frame = new byte[length];
            }
            in.readFully(frame, 0, length);
            out.write(length >>> 24);
            out.write(length >>> 16);
            out.write(length >>> 8);
            out.write(length);
            out.write(frame, 0, length);
            if (in.available() == 0) {
                out.flush();
            }
        }
    }

    /** The response of the blocking HTTP servers: {@link HttpHelloServer}'s, byte for byte. */
    public static final byte[] HTTP_RESPONSE = ("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: "
        + HttpHelloServer.BODY.length + "\r\n\r\n" + new String(HttpHelloServer.BODY, StandardCharsets.US_ASCII))
        .getBytes(StandardCharsets.US_ASCII);

    /**
     * Just enough HTTP/1.1 for wrk's GETs: a request ends at its blank line (no bodies), each answered with
     * {@link #HTTP_RESPONSE}, pipelined ones in order, written once no more input is waiting.
     */
    static void http(InputStream rawIn, OutputStream rawOut) throws IOException {
        InputStream in = new BufferedInputStream(rawIn, 64 * 1024);
        OutputStream out = new BufferedOutputStream(rawOut, 64 * 1024);
        int matched = 0; // of "\r\n\r\n"
        int header = 0;
        for (;;) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            if (++header > 64 * 1024) {
                throw new IOException("request header over 64 KiB");
            }
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                matched = 0;
                header = 0;
                out.write(HTTP_RESPONSE);
                if (in.available() == 0) {
                    out.flush();
                }
            }
        }
    }

    /** Just enough RESP for redis-benchmark's SET and GET: arrays of bulk strings in, simple answers out. */
    static void redis(InputStream rawIn, OutputStream rawOut, Map<String, byte[]> store) throws IOException {
        InputStream in = new BufferedInputStream(rawIn, 64 * 1024);
        OutputStream out = new BufferedOutputStream(rawOut, 64 * 1024);
        for (;;) {
            int first = in.read();
            if (first < 0) {
                return;
            }
            if (first != '*') {
                throw new IOException("expected a RESP array, got byte " + first);
            }
            int count = (int) readNumber(in);
            byte[][] args = new byte[Math.max(count, 0)][];
            for (int i = 0; i < args.length; i++) {
                if (in.read() != '$') {
                    throw new IOException("expected a RESP bulk string");
                }
                long length = readNumber(in);
                if (length < 0 || length > MAX_FRAME) {
                    throw new IOException("bad bulk length " + length);
                }
                args[i] = in.readNBytes((int) length);
                if (args[i].length != length || in.read() != '\r' || in.read() != '\n') {
                    throw new IOException("truncated bulk string");
                }
            }
            String command = args.length == 0 ? "" : new String(args[0], StandardCharsets.US_ASCII)
                .toUpperCase(Locale.ROOT);
            if (command.equals("SET") && args.length >= 3) {
                store.put(new String(args[1], StandardCharsets.UTF_8), args[2]);
                out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
            } else if (command.equals("GET") && args.length == 2) {
                byte[] value = store.get(new String(args[1], StandardCharsets.UTF_8));
                if (value == null) {
                    out.write("$-1\r\n".getBytes(StandardCharsets.US_ASCII));
                } else {
                    out.write(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(value);
                    out.write('\r');
                    out.write('\n');
                }
            } else if (command.equals("PING")) {
                out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
            } else if (command.equals("CONFIG")) {
                out.write("*0\r\n".getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write(("-ERR unknown command '" + command + "'\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            if (in.available() == 0) {
                out.flush();
            }
        }
    }

    private static long readNumber(InputStream in) throws IOException {
        long value = 0;
        boolean negative = false;
        for (int b = in.read(); ; b = in.read()) {
            if (b == '-') {
                negative = true;
            } else if (b >= '0' && b <= '9') {
                value = value * 10 + (b - '0');
            } else if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("expected CRLF");
                }
                return negative ? -value : value;
            } else {
                throw new IOException("bad RESP number");
            }
        }
    }
}
