package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.handler.codec.quic.InsecureQuicTokenHandler;
import io.netty.handler.codec.quic.Quic;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's QUIC codec (quiche, {@code netty-codec-native-quic}) over Ringwire's UDP channel, as a QUIC user sets it
 * up: the server sends with GSO ({@link SegmentedDatagramPacket}s from its {@link SegmentedDatagramPacketAllocator}),
 * the client receives with {@link RingwireChannelOption#UDP_GRO}. One bidirectional stream echoes 4 MiB, checked
 * byte for byte.
 */
class QuicOverRingwireTest extends OneLoopTestBase {
    private static final int LENGTH = 4 << 20;
    private static final String PROTOCOL = "ringwire-echo";
    /** What a QUIC user on Ringwire writes in place of {@code EpollQuicUtils.newSegmentedAllocator(10)}. */
    private static final SegmentedDatagramPacketAllocator GSO = SegmentedDatagramPacket::new;

    @Test
    void aStreamEchoesFourMebibytesWithGsoAndGro() throws Exception {
        Quic.ensureAvailability(); // loads quiche; says why it cannot
        Assumptions.assumeTrue(Quic.isAvailable(), "Netty's QUIC native library does not load here");
        X509Bundle cert = new CertificateBuilder().subject("cn=localhost").setIsCertificateAuthority(true)
            .buildSelfSigned();
        QuicSslContext serverTls = QuicSslContextBuilder.forServer(cert.getKeyPair().getPrivate(), null,
            cert.getCertificate()).applicationProtocols(PROTOCOL).build();
        QuicSslContext clientTls = QuicSslContextBuilder.forClient()
            .trustManager(InsecureTrustManagerFactory.INSTANCE).applicationProtocols(PROTOCOL).build();

        ChannelHandler serverCodec = new QuicServerCodecBuilder().sslContext(serverTls)
            .maxIdleTimeout(30, TimeUnit.SECONDS)
            .initialMaxData(LENGTH).initialMaxStreamDataBidirectionalRemote(LENGTH)
            .initialMaxStreamDataBidirectionalLocal(LENGTH).initialMaxStreamsBidirectional(4)
            .tokenHandler(InsecureQuicTokenHandler.INSTANCE)
            .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, GSO)
            .handler(new ChannelInboundHandlerAdapter())
            .streamHandler(new TrackingEcho(0)) // the tests' echo: what a stream reads goes back on it
            .build();
        ChannelHandler clientCodec = new QuicClientCodecBuilder().sslContext(clientTls)
            .maxIdleTimeout(30, TimeUnit.SECONDS)
            .initialMaxData(LENGTH).initialMaxStreamDataBidirectionalLocal(LENGTH)
            .initialMaxStreamDataBidirectionalRemote(LENGTH)
            .build();

        InetAddress loopback = InetAddress.getLoopbackAddress();
        Channel server = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .handler(serverCodec)
            .bind(new InetSocketAddress(loopback, 0)).sync().channel();
        Channel client = new Bootstrap().group(group)
            .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
            .option(RingwireChannelOption.UDP_GRO, true)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
            .handler(clientCodec)
            .bind(new InetSocketAddress(loopback, 0)).sync().channel();
        RingwireCounters counters = RingwireCounters.of(server.eventLoop());
        long[] before = server.eventLoop().submit(() -> new long[] {counters.segmentedSends(), counters.groBatches()})
            .get();
        try {
            QuicChannel quic = QuicChannel.newBootstrap(client)
                .handler(new ChannelInboundHandlerAdapter())
                .remoteAddress(server.localAddress())
                .connect().get(30, TimeUnit.SECONDS);
            byte[] sent = DatagramChannelTest.pattern(LENGTH, 7);
            ByteBuf echoed = Unpooled.buffer(LENGTH);
            CompletableFuture<byte[]> done = new CompletableFuture<>();
            QuicStreamChannel stream = quic.createStream(QuicStreamType.BIDIRECTIONAL,
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        echoed.writeBytes(b);
                        b.release();
                        if (echoed.readableBytes() >= LENGTH) {
                            done.complete(io.netty.buffer.ByteBufUtil.getBytes(echoed));
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        done.completeExceptionally(cause);
                    }
                }).sync().getNow();
            stream.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, done.get(60, TimeUnit.SECONDS), "4 MiB echoed over QUIC, byte for byte");
            long[] after = server.eventLoop().submit(() -> new long[] {counters.segmentedSends(),
                counters.groBatches()}).get();
            assertTrue(after[0] > before[0], "the server's packets left as GSO sends");
            assertTrue(after[1] > before[1], "the client received GRO batches");
            quic.close().sync();
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }
}
