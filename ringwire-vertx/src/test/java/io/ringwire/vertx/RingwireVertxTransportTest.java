package io.ringwire.vertx;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireCounters;
import io.ringwire.transport.RingwireDatagramChannel;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vert.x 5 on Ringwire through its transport SPI: HTTP server and client (with a file sent by sendFile, which takes
 * the FileRegion path), a TCP echo over TCP and a Unix domain socket, and a DNS lookup by Vert.x's DNS client (its
 * datagram channel is Ringwire's) against a small DNS server this test runs on loopback. Every exchange must have
 * gone through Ringwire's loops.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingwireVertxTransportTest {
    private Vertx vertx;

    @BeforeEach
    void start() {
        assertTrue(RingwireTransport.RINGWIRE.available(), () -> "io_uring: "
            + RingwireTransport.RINGWIRE.unavailabilityCause());
        vertx = Vertx.builder().withTransport(RingwireTransport.RINGWIRE).build();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    /**
     * Receives counted by Vert.x's event loops, read on each loop (the counters are its plain fields); a loop that
     * never ran has no counters yet. Zero unless they are Ringwire's.
     */
    private long ringwireReceives() throws Exception {
        return sum(RingwireCounters::recvs);
    }

    private long sum(java.util.function.ToLongFunction<RingwireCounters> counter) throws Exception {
        long total = 0;
        for (EventExecutor e : ((VertxInternal) vertx).nettyEventLoopGroup()) {
            EventLoop loop = (EventLoop) e;
            RingwireCounters c = RingwireCounters.of(loop);
            if (c != null) {
                total += loop.submit(() -> counter.applyAsLong(c)).get();
            }
        }
        return total;
    }

    @Test
    void httpServerAndClientIncludingSendFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("data.bin");
        byte[] content = new byte[3 * 1024 * 1024 + 17];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7 + (i >>> 12));
        }
        Files.write(file, content);
        HttpServer server = await(vertx.createHttpServer().requestHandler(req -> {
            switch (req.path()) {
                case "/hello" -> req.response().end("Hello, World!");
                case "/echo" -> req.body().onSuccess(body -> req.response().end(body));
                case "/file" -> req.response().sendFile(file.toString());
                default -> req.response().setStatusCode(404).end();
            }
        }).listen(0, "127.0.0.1"));
        HttpClient client = vertx.createHttpClient();
        int port = server.actualPort();
        for (int i = 0; i < 10; i++) {
            assertEquals("Hello, World!", await(client.request(HttpMethod.GET, port, "127.0.0.1", "/hello")
                .compose(r -> r.send().compose(res -> res.body()))).toString());
        }
        String body = "ringwire".repeat(25_000);
        assertEquals(body, await(client.request(HttpMethod.POST, port, "127.0.0.1", "/echo")
            .compose(r -> r.send(body).compose(res -> res.body()))).toString());
        assertArrayEquals(content, await(client.request(HttpMethod.GET, port, "127.0.0.1", "/file")
            .compose(r -> r.send().compose(res -> res.body()))).getBytes(), "the file, sent with a FileRegion");
        await(client.close()); // also keeps the client reachable until here: Vert.x 5 shuts down one that is not
        assertTrue(ringwireReceives() > 0, "the requests went through Ringwire's loops");
        // Vert.x makes the region from a FileChannel: mapped (sendfile with the JDK's fields opened), never copied
        assertEquals(content.length,
            sum(RingwireCounters::fileRegionMappedBytes) + sum(RingwireCounters::sendfileBytes),
            "the file went as a FileRegion, not through a buffer");
        assertEquals(0, sum(RingwireCounters::fileRegionCopiedBytes));
    }

    @Test
    void tcpEchoOverTcpAndADomainSocket(@TempDir Path dir) throws Exception {
        echo(SocketAddress.inetSocketAddress(0, "127.0.0.1"));
        echo(SocketAddress.domainSocketAddress(dir.resolve("echo.sock").toString()));
        assertTrue(ringwireReceives() > 0, "the echoes went through Ringwire's loops");
    }

    private void echo(SocketAddress bind) throws Exception {
        NetServer server = await(vertx.createNetServer().connectHandler(s -> s.handler(s::write)).listen(bind));
        NetClient client = vertx.createNetClient();
        SocketAddress target = bind.isDomainSocket() ? bind
            : SocketAddress.inetSocketAddress(server.actualPort(), "127.0.0.1");
        NetSocket socket = await(client.connect(target));
        String message = "echo over " + (bind.isDomainSocket() ? "a domain socket " : "TCP ");
        String expected = message.repeat(5_000);
        CompletableFuture<String> echoed = new CompletableFuture<>();
        Buffer got = Buffer.buffer();
        socket.handler(b -> {
            got.appendBuffer(b);
            if (got.length() >= expected.length()) {
                echoed.complete(got.toString());
            }
        });
        socket.write(expected);
        assertEquals(expected, echoed.get(20, TimeUnit.SECONDS));
        await(socket.close());
        await(client.close());
        await(server.close());
    }

    /**
     * Vert.x applies its datagram sockets' multicast options for its NIO transport only; Ringwire's configure applies
     * them too (Vert.x's DatagramTest multicast cases failed without). Set on a channel, read back from its config.
     */
    @Test
    void multicastOptionsReachTheDatagramChannel() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        RingwireDatagramChannel ch = new RingwireDatagramChannel();
        try {
            new RingwireVertxTransport().configure(ch, new DatagramSocketOptions().setLoopbackModeDisabled(true)
                .setMulticastTimeToLive(7).setMulticastNetworkInterface(lo.getName()));
            assertTrue(ch.config().isLoopbackModeDisabled());
            assertEquals(7, ch.config().getTimeToLive());
            assertEquals(lo, ch.config().getNetworkInterface());
            assertThrows(IllegalArgumentException.class, () -> new RingwireVertxTransport().configure(ch,
                new DatagramSocketOptions().setMulticastNetworkInterface("no-such-interface0")));
        } finally {
            ch.unsafe().closeForcibly();
        }
    }

    /** TCP_CORK, which Vert.x maps on its own epoll and io_uring transports, reaches Ringwire's option too. */
    @Test
    void tcpCorkIsMappedForServersAndClients() {
        io.vertx.core.net.TcpConfig tcp = new io.vertx.core.net.TcpConfig()
            .setOption(io.vertx.core.net.TcpOption.CORK, true);
        io.netty.bootstrap.ServerBootstrap server = new io.netty.bootstrap.ServerBootstrap();
        new RingwireVertxTransport().configure(tcp, false, server);
        assertEquals(true, server.config().childOptions().get(RingwireChannelOption.TCP_CORK));
        io.netty.bootstrap.Bootstrap client = new io.netty.bootstrap.Bootstrap();
        new RingwireVertxTransport().configure(tcp, false, client);
        assertEquals(true, client.config().options().get(RingwireChannelOption.TCP_CORK));
    }

    @Test
    void dnsLookupGoesThroughRingwiresDatagramChannel() throws Exception {
        try (TinyDnsServer dns = new TinyDnsServer(new byte[] {127, 0, 0, 7})) {
            String address = await(vertx.createDnsClient(dns.port(), "127.0.0.1").lookup4("ringwire.test"));
            assertEquals("127.0.0.7", address);
            assertTrue(dns.answered.get() > 0);
        }
        assertTrue(ringwireReceives() > 0, "the answer came in through Ringwire's loops");
    }

    /** Answers every A query on 127.0.0.1 with one address (a plain JDK socket on its own thread). */
    private static final class TinyDnsServer implements AutoCloseable {
        private final DatagramSocket socket;
        private final Thread thread;
        final AtomicInteger answered = new AtomicInteger();

        TinyDnsServer(byte[] address) throws Exception {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            thread = Thread.ofPlatform().daemon(true).start(() -> {
                byte[] in = new byte[512];
                while (!socket.isClosed()) {
                    DatagramPacket q = new DatagramPacket(in, in.length);
                    try {
                        socket.receive(q);
                        byte[] answer = answer(in, q.getLength(), address);
                        answered.incrementAndGet(); // before the answer leaves: the test may read it at once
                        socket.send(new DatagramPacket(answer, answer.length, q.getSocketAddress()));
                    } catch (Exception closed) {
                        return;
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        /** The query's header and question, then one A record pointing at the question's name. */
        private static byte[] answer(byte[] query, int length, byte[] address) {
            int end = 12;
            while (query[end] != 0) {
                end += (query[end] & 0xff) + 1; // labels up to the root
            }
            end += 1 + 4; // the root, QTYPE, QCLASS
            ByteBuffer b = ByteBuffer.allocate(end + 16);
            b.put(query, 0, 2);                 // ID
            b.putShort((short) 0x8180);         // a response, recursion desired and available, no error
            b.putShort((short) 1).putShort((short) 1).putShort((short) 0).putShort((short) 0);
            b.put(query, 12, end - 12);         // the question
            b.putShort((short) 0xC00C);         // the name: a pointer to the question's
            b.putShort((short) 1).putShort((short) 1).putInt(60).putShort((short) 4).put(address);
            return b.array();
        }

        @Override
        public void close() throws InterruptedException {
            socket.close();
            thread.join(5_000);
        }
    }
}
