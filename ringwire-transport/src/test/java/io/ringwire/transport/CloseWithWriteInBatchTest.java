package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receive and a write of one channel complete in the same enter, the receive's CQE first, and the handler closes
 * the channel on what it read (Vert.x's HTTP client on a response it cannot parse). The write's CQE, next in the same
 * batch, says the kernel took its bytes: its promise must succeed, as it would on epoll (where the write happened at
 * the flush), not fail with "closed" for bytes the peer receives.
 */
class CloseWithWriteInBatchTest extends OneLoopTestBase {

    @ParameterizedTest(name = "{0} buffer(s), zero-copy from {1} bytes (0: never)")
    @CsvSource({"1, 0", "2, 0", "1, 1", "2, 1"})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWriteTheKernelTookIsNotFailedByACloseEarlierInItsBatch(int buffers, int zeroCopyFrom) throws Exception {
        for (int round = 0; round < 20; round++) {
            oneRound(round, buffers, zeroCopyFrom);
        }
    }

    private void oneRound(int round, int buffers, int zeroCopyFrom) throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(RingwireChannelOption.SEND_ZC_THRESHOLD, zeroCopyFrom)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                        ctx.close(); // a reply it cannot parse
                    }
                })
                .connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                OutputStream out = peer.getOutputStream();
                out.write("garbage\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush(); // on loopback, in the channel's receive queue when this returns
                ChannelFuture written = ch.eventLoop().submit(() -> {
                    ch.read(); // the receive's SQE first
                    if (buffers == 2) {
                        ch.write(Unpooled.copiedBuffer("req", StandardCharsets.US_ASCII)); // one SENDMSG for both
                    }
                    String last = buffers == 2 ? "uest" : "request";
                    return ch.writeAndFlush(Unpooled.copiedBuffer(last, StandardCharsets.US_ASCII));
                }).get(10, TimeUnit.SECONDS);
                InputStream in = peer.getInputStream();
                String received = new String(in.readAllBytes(), StandardCharsets.US_ASCII); // to the close's FIN
                ch.closeFuture().sync();
                written.await(10, TimeUnit.SECONDS);
                assertEquals("request", received, "round " + round + ": the peer has the write's bytes");
                assertNull(written.cause(), "round " + round + ": the write's promise");
                assertTrue(written.isSuccess(), "round " + round);
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void datagramsTheKernelTookAreNotFailedByACloseEarlierInTheirBatch() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (DatagramSocket peer = new DatagramSocket(new InetSocketAddress(lo, 0))) {
            peer.setSoTimeout(10_000);
            for (int round = 0; round < 20; round++) {
                Channel ch = new Bootstrap().group(group)
                    .channelFactory(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4))
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ReferenceCountUtil.release(msg);
                            ctx.close();
                        }
                    }).bind(new InetSocketAddress(lo, 0)).sync().channel();
                byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
                peer.send(new java.net.DatagramPacket(hello, hello.length, ch.localAddress()));
                java.util.List<ChannelFuture> written = ch.eventLoop().submit(() -> {
                    ch.read(); // the receive's SQE first
                    java.util.List<ChannelFuture> sends = new java.util.ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        sends.add(ch.write(new DatagramPacket(Unpooled.copiedBuffer("d" + i, StandardCharsets.US_ASCII),
                            (InetSocketAddress) peer.getLocalSocketAddress())));
                    }
                    ch.flush();
                    return sends;
                }).get(10, TimeUnit.SECONDS);
                ch.closeFuture().sync();
                for (int i = 0; i < 3; i++) {
                    java.net.DatagramPacket p = new java.net.DatagramPacket(new byte[16], 16);
                    peer.receive(p);
                    assertEquals("d" + i, new String(p.getData(), 0, p.getLength(), StandardCharsets.US_ASCII),
                        "round " + round + ": the peer has the datagrams");
                }
                for (ChannelFuture f : written) {
                    f.await(10, TimeUnit.SECONDS);
                    assertNull(f.cause(), "round " + round + ": a datagram's promise");
                }
            }
        }
    }
}
