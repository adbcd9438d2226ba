package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An HTTP/1.1 server that turns autoRead off when a request arrives and on again once its response is written, as
 * many proxies do (the shape of Netty's io_uring fault of 2026, netty#17049: a readPending race around the toggles left
 * responses unsent on keep-alive connections). Several keep-alive connections send many requests, one at a time and
 * pipelined in bursts; every response must come back, in order, each the answer to its own request. The server
 * answers on its loop, or from another thread (a proxy's backend); with fds, and with direct descriptors in the
 * {@code direct-descriptors} run.
 */
class AutoReadAroundKeepAliveRequestsTest extends OneLoopTestBase {
    private static final int CONNECTIONS = 6;
    private static final int REQUESTS = 400;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyResponseArrivesWhenTheServerAnswersOnItsLoop() throws Exception {
        run(null);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyResponseArrivesWhenABackendThreadAnswers() throws Exception {
        ExecutorService backend = Executors.newSingleThreadExecutor();
        try {
            run(backend);
        } finally {
            backend.shutdownNow();
        }
    }

    /** @param backend where responses are made, null: in channelRead, on the connection's loop */
    private static void run(ExecutorService backend) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024),
                        new PausingServer(backend));
                }
            })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                int connection = c;
                done.add(clients.submit(() -> {
                    client(connection, (InetSocketAddress) server.localAddress());
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
            server.close().sync();
        }
    }

    /**
     * Turns autoRead off for each request and on again when the last response owed has been written. Requests that a
     * pipelined burst brought in one read still arrive (the decoder passes on what it holds); each is answered in
     * order.
     */
    private static final class PausingServer extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final ExecutorService backend;
        private int owed;

        PausingServer(ExecutorService backend) {
            this.backend = backend;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            ctx.channel().config().setAutoRead(false);
            owed++;
            String uri = request.uri();
            if (backend == null) {
                respond(ctx, uri);
            } else {
                backend.execute(() -> respond(ctx, uri)); // in order: one backend thread, writes queued in order
            }
        }

        private void respond(ChannelHandlerContext ctx, String uri) {
            byte[] body = ("answer to " + uri).getBytes(StandardCharsets.US_ASCII);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            ctx.writeAndFlush(response).addListener(f -> {
                if (--owed == 0) { // the listener runs on the loop
                    ctx.channel().config().setAutoRead(true);
                }
            });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** One keep-alive connection: requests one at a time, then pipelined bursts of 2 to 16, each answer checked. */
    private static void client(int connection, InetSocketAddress server) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server);
            s.setTcpNoDelay(true);
            s.setSoTimeout(30_000); // only a guard: a response that never comes fails the test by name
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            int sent = 0;
            int burst = 1;
            while (sent < REQUESTS) {
                int n = sent < REQUESTS / 4 ? 1 : Math.min(burst, REQUESTS - sent);
                StringBuilder requests = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    requests.append("GET /c").append(connection).append("/r").append(sent + i)
                        .append(" HTTP/1.1\r\nHost: localhost\r\n\r\n");
                }
                out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
                out.flush();
                for (int i = 0; i < n; i++) {
                    String uri = "/c" + connection + "/r" + (sent + i);
                    String body;
                    try {
                        body = readResponse(in);
                    } catch (SocketTimeoutException e) {
                        fail("connection " + connection + ": no response to " + uri + " in 30 s (" + (sent + i)
                            + " answered; " + n + " sent in this burst)");
                        return;
                    }
                    assertEquals("answer to " + uri, body, "connection " + connection + ": the answer in order");
                }
                sent += n;
                burst = burst % 16 + 1;
            }
        }
    }

    /** @return the body of the next response (Content-Length framed) */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the server closed the connection");
            }
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
        int length = -1;
        for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        if (length < 0) {
            throw new IOException("a response without Content-Length: " + head);
        }
        return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }
}
