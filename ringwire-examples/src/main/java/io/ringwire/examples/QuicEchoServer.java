package io.ringwire.examples;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.handler.codec.quic.InsecureQuicTokenHandler;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;
import io.ringwire.transport.RingwireChannelOption;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A QUIC echo server on Netty's QUIC codec (quiche): every stream's bytes go back on that stream, flushed once per
 * batch of reads. The codec sits on the transport's UDP channel; where the transport can (Ringwire, Netty epoll and
 * io_uring), the server sends with GSO, several QUIC packets in one send cut by the kernel. With
 * {@code -Dringwire.examples.quicGro=true} it also receives with UDP_GRO on Ringwire, into 64 KiB buffers (Netty
 * epoll has UDP_GRO too, but with 64 KiB receive buffers its QUIC channels did not complete a handshake here; not
 * investigated).
 *
 * <p>The certificate is the examples' self-signed one for localhost ({@link ExampleCertificate}).
 *
 * <pre>
 * java ... io.ringwire.examples.QuicEchoServer [port] [threads] [transport]   # 127.0.0.1, default 9003, ringwire
 * </pre>
 */
public final class QuicEchoServer {
    /** The application protocol (ALPN) a client must offer. */
    public static final String PROTOCOL = "ringwire-echo";
    /** Flow-control windows: bytes a connection, and each stream, may have unread at the peer. */
    public static final long WINDOW = 16L << 20;
    /** Whether the server receives with UDP_GRO where its transport has it. */
    static final boolean GRO = Boolean.getBoolean("ringwire.examples.quicGro");

    private QuicEchoServer() { }

    /**
     * @param args optional port, thread count (unused: one loop serves a datagram channel), transport
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 9003, "QUIC echo server", QuicEchoServer::start);
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
        return start(transport, address, new EchoServerHandler()); // a stream's bytes, as a connection's
    }

    /**
     * The same server with another handler for every stream.
     *
     * @param streamHandler a {@code @Sharable} handler, added to every stream's pipeline
     * @return the bound channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, ChannelHandler streamHandler)
        throws InterruptedException {
        QuicServerCodecBuilder codec = new QuicServerCodecBuilder().sslContext(serverTls())
            .maxIdleTimeout(60, TimeUnit.SECONDS)
            .initialMaxData(WINDOW).initialMaxStreamDataBidirectionalRemote(WINDOW)
            .initialMaxStreamDataBidirectionalLocal(WINDOW).initialMaxStreamsBidirectional(1_000)
            .tokenHandler(InsecureQuicTokenHandler.INSTANCE)
            .handler(new Connection()) // one instance for every connection: @Sharable
            .streamHandler(streamHandler);
        SegmentedDatagramPacketAllocator gso = gso(transport);
        if (gso != null) {
            codec.option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, gso);
        }
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        if (GRO && "ringwire".equals(transport)) {
            options.put(RingwireChannelOption.UDP_GRO, true);
            options.put(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536));
        }
        return Transports.startDatagram(transport, address, codec.build(), options);
    }

    /**
     * @return the transport's way to send several QUIC packets in one send (GSO): Netty's own
     *         {@link io.netty.channel.unix.SegmentedDatagramPacket}, which Ringwire's, Netty epoll's and Netty
     *         io_uring's datagram channels take; null for NIO, which has none
     */
    static SegmentedDatagramPacketAllocator gso(String transport) {
        return "netty-nio".equals(transport) ? null : io.netty.channel.unix.SegmentedDatagramPacket::new;
    }

    /** A connection's own handler: nothing to do beyond its streams. */
    @ChannelHandler.Sharable
    static final class Connection extends ChannelInboundHandlerAdapter {
    }

    private static QuicSslContext serverTls() {
        ExampleCertificate id = ExampleCertificate.load();
        return QuicSslContextBuilder.forServer(id.key(), null, id.certificate()).applicationProtocols(PROTOCOL).build();
    }
}
