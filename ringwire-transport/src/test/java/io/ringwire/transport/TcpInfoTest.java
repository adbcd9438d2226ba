package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RingwireSocketChannel#tcpInfo()} reads the kernel's TCP_INFO for the connection, in the layout of
 * {@code struct tcp_info}: checked against what the test itself made happen (bytes each way, the state, an MSS on
 * loopback's MTU), and against Netty's convention once the channel is closed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpInfoTest extends OneLoopTestBase {

    @Test
    void tcpInfoReportsTheConnectionsStateAndCounters() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            RingwireSocketChannel ch = (RingwireSocketChannel) new Bootstrap().group(group)
                .channel(RingwireSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
                .connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[10_000])).sync();
                InputStream in = peer.getInputStream();
                byte[] got = in.readNBytes(10_000);
                assertEquals(10_000, got.length);
                OutputStream out = peer.getOutputStream();
                out.write(new byte[3_000]);
                out.flush();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                RingwireTcpInfo info = ch.tcpInfo();
                while ((info.bytesAcked() < 10_000 || info.bytesReceived() < 3_000) && System.nanoTime() < deadline) {
                    Thread.sleep(5); // the ACK of the last segment may still be on its way
                    info = ch.tcpInfo();
                }
                assertEquals(1, info.state(), "ESTABLISHED: " + info);
                // (loss-free is loopback's usual case but not a given on a stalled machine: a 200 ms stall is an RTO)
                assertTrue(info.caState() <= 4, "open, disorder, CWR, recovery or loss: " + info.caState());
                assertTrue(info.bytesAcked() >= 10_000 && info.bytesAcked() <= 10_001, info.toString()); // +1: SYN
                assertEquals(3_000, info.bytesReceived(), info.toString());
                assertTrue(info.bytesSent() >= 10_000, info.toString());
                assertTrue(info.sndMss() > 1_000 && info.sndMss() <= 65_535, "loopback's MTU: " + info.sndMss());
                assertTrue(info.pmtu() >= info.sndMss(), info.toString());
                assertTrue(info.rtt() > 0, "a round trip measured: " + info);
                assertTrue(info.sndCwnd() > 0 && info.segsOut() > 0 && info.segsIn() > 0, info.toString());
                assertTrue(info.totalRetrans() <= info.segsOut(), "retransmissions are among the segments sent: "
                    + info);
                assertTrue((info.options() & 2) != 0, "SACK, on by default: " + info.options());
            }
            ch.close().sync();
            ChannelException closed = assertThrows(ChannelException.class, ch::tcpInfo);
            assertInstanceOf(ClosedChannelException.class, closed.getCause());
        }
    }
}
