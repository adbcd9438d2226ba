package io.ringwire.reactor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;
import io.netty.channel.socket.DuplexChannel;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reactor Netty's HTTP and TCP servers and clients on {@link RingwireLoopResources}: requests and echoes come back
 * whole, every channel is Ringwire's, and a slow subscriber turns the server channel's autoRead off (Reactor
 * Netty's back-pressure) without losing a byte.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingwireLoopResourcesTest {
    private final RingwireLoopResources loops = RingwireLoopResources.create("test", 2);
    private final Set<Class<?>> channelClasses = ConcurrentHashMap.newKeySet();

    @AfterEach
    void dispose() {
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
        assertTrue(loops.isDisposed());
    }

    @Test
    void mapsEveryNettyChannelTypeToRingwiresAndNamesTheOthers() {
        assertEquals(RingwireSocketChannel.class, loops.onChannelClass(SocketChannel.class, null));
        assertEquals(RingwireServerSocketChannel.class, loops.onChannelClass(ServerSocketChannel.class, null));
        assertEquals(RingwireDomainSocketChannel.class, loops.onChannelClass(DomainSocketChannel.class, null));
        assertEquals(RingwireServerDomainSocketChannel.class,
            loops.onChannelClass(ServerDomainSocketChannel.class, null));
        assertEquals(RingwireDatagramChannel.class, loops.onChannelClass(DatagramChannel.class, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> loops.onChannelClass(DuplexChannel.class, null));
        assertTrue(e.getMessage().contains(DuplexChannel.class.getName()), e.getMessage());
    }

    @Test
    void httpServerAndClientRoundTrips() {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).runOn(loops)
            .doOnConnection(c -> channelClasses.add(c.channel().getClass()))
            .route(r -> r
                .get("/hello", (req, res) -> res.sendString(Mono.just("Hello, World!")))
                .post("/echo", (req, res) -> res.send(req.receive().retain())))
            .bindNow();
        try {
            HttpClient client = HttpClient.create().runOn(loops).host("127.0.0.1").port(server.port())
                .doOnConnected(c -> channelClasses.add(c.channel().getClass()));
            for (int i = 0; i < 20; i++) {
                assertEquals("Hello, World!", client.get().uri("/hello").responseContent().aggregate().asString()
                    .block(Duration.ofSeconds(10)));
            }
            String body = "x".repeat(300_000);
            assertEquals(body, client.post().uri("/echo").send(Mono.just(
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8)))
                .responseContent().aggregate().asString().block(Duration.ofSeconds(10)));
            assertEquals(RingwireServerSocketChannel.class, server.channel().getClass());
            assertEquals(Set.of(RingwireSocketChannel.class), channelClasses,
                "both sides' connections are Ringwire's");
        } finally {
            server.disposeNow(Duration.ofSeconds(10));
        }
    }

    @Test
    void tcpEchoOverTcpAndADomainSocket(@TempDir Path dir) {
        tcpEcho(TcpServer.create().host("127.0.0.1").port(0), null);
        DomainSocketAddress path = new DomainSocketAddress(dir.resolve("echo.sock").toFile());
        tcpEcho(TcpServer.create().bindAddress(() -> path), path);
        assertTrue(channelClasses.contains(RingwireDomainSocketChannel.class), channelClasses::toString);
    }

    private void tcpEcho(TcpServer create, DomainSocketAddress path) {
        DisposableServer server = create.runOn(loops)
            .doOnConnection(c -> channelClasses.add(c.channel().getClass()))
            .handle((in, out) -> out.send(in.receive().retain()))
            .bindNow();
        try {
            Connection connection = TcpClient.create().runOn(loops)
                .remoteAddress(() -> path != null ? path : server.address())
                .connectNow(Duration.ofSeconds(10));
            try {
                String message = "ringwire ".repeat(10_000);
                connection.outbound().sendString(Mono.just(message)).then().subscribe();
                String got = connection.inbound().receive().asString()
                    .scan(new StringBuilder(), StringBuilder::append)
                    .filter(sb -> sb.length() >= message.length()).next().map(StringBuilder::toString)
                    .block(Duration.ofSeconds(10));
                assertEquals(message, got);
                channelClasses.add(connection.channel().getClass());
            } finally {
                connection.disposeNow(Duration.ofSeconds(10));
            }
        } finally {
            server.disposeNow(Duration.ofSeconds(10));
        }
    }

    /**
     * The server's subscriber takes one buffer at a time and 1 ms for each while the client sends 8 MiB at once:
     * Reactor Netty turns autoRead off when the subscriber's demand is spent, and Ringwire must then stop reading, so
     * what the transport has delivered but the subscriber not yet taken stays far below what was sent.
     */
    @Test
    void aSlowSubscriberTurnsAutoReadOffAndLosesNothing() {
        long total = 8L * 1024 * 1024;
        AtomicLong delivered = new AtomicLong(); // by the transport, counted at the head of the pipeline
        AtomicLong consumed = new AtomicLong();  // by the slow subscriber
        AtomicLong mostWaiting = new AtomicLong();
        AtomicBoolean sawAutoReadOff = new AtomicBoolean();
        DisposableServer server = TcpServer.create().host("127.0.0.1").port(0).runOn(loops)
            .doOnConnection(c -> c.addHandlerFirst("count", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    delivered.addAndGet(((ByteBuf) msg).readableBytes());
                    ctx.fireChannelRead(msg);
                }
            }))
            .handle((in, out) -> {
                Channel[] ch = new Channel[1];
                in.withConnection(c -> ch[0] = c.channel());
                // The size is read as each buffer arrives: Reactor Netty releases a buffer when onNext returns,
                // and concatMap takes a queued element later, when the pooled buffer may already serve another read.
                return in.receive()
                    .map(ByteBuf::readableBytes)
                    .limitRate(1)
                    .concatMap(n -> {
                        if (!ch[0].config().isAutoRead()) {
                            sawAutoReadOff.set(true);
                        }
                        mostWaiting.accumulateAndGet(delivered.get() - consumed.get(), Math::max);
                        return Mono.delay(Duration.ofMillis(1)).thenReturn(n);
                    }, 1)
                    .doOnNext(consumed::addAndGet)
                    .takeUntil(n -> consumed.get() >= total)
                    .then(out.sendString(Mono.just("done")).then());
            })
            .bindNow();
        try {
            Connection connection = TcpClient.create().runOn(loops).remoteAddress(server::address)
                .connectNow(Duration.ofSeconds(10));
            try {
                byte[] chunk = new byte[64 * 1024];
                connection.outbound().send(Flux.range(0, (int) (total / chunk.length))
                    .map(i -> Unpooled.wrappedBuffer(chunk))).then().subscribe();
                assertEquals("done", connection.inbound().receive().asString().next().block(Duration.ofSeconds(50)));
            } finally {
                connection.disposeNow(Duration.ofSeconds(10));
            }
            assertEquals(total, delivered.get(), "the transport delivered every byte once");
            assertEquals(total, consumed.get(), "every byte reached the subscriber");
            assertTrue(sawAutoReadOff.get(), "Reactor Netty turned autoRead off for the slow subscriber");
            assertTrue(mostWaiting.get() < total / 4, () -> "the transport stopped reading: at most "
                + mostWaiting.get() + " bytes waited for the subscriber, of " + total + " sent");
        } finally {
            server.disposeNow(Duration.ofSeconds(10));
        }
    }
}
