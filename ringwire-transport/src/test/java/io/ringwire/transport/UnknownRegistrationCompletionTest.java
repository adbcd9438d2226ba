package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.Libc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A receive completion whose registration is gone (its channel finished and left the handler's table) still took a
 * buffer from the loop's shared ring; the handler must give it back, or every such completion shrinks the ring for
 * good. The test queues such a receive on purpose: a RECV with buffer selection whose user_data names a registration
 * id nobody has, on a socket with a byte waiting.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UnknownRegistrationCompletionTest extends OneLoopTestBase {
    @Test
    void aBufferTakenForAnUnknownRegistrationGoesBackToTheRing() throws Exception {
        try (ServerSocket peers = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                peers.getLocalPort());
            // a channel only to reach the loop's handler; reading paused, so it takes no buffer itself
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .connect(address).sync().channel();
            try (Socket channelPeer = peers.accept()) {
                RingwireIoHandler handler = ((RingwireSocketChannel) ch).registration.handler();
                int fd = connectRaw(address);
                Socket[] peer = new Socket[1];
                try {
                    long before = ch.eventLoop().submit(() -> {
                        peer[0] = peers.accept();
                        OutputStream out = peer[0].getOutputStream();
                        out.write('x');
                        out.flush();
                        BufferRing ring = handler.receiveBuffers().bufferRing();
                        long returned = ring.returned();
                        handler.sq().prepRecvBufferSelect(fd, ReceiveBuffers.GROUP, 0,
                            UserData.encode(Integer.MAX_VALUE, IoUringConstants.IORING_OP_RECV, 0));
                        return returned;
                    }).get();
                    // the completion comes within an iteration or two; without the fix the buffer never comes back,
                    // so the bound only limits how long a failure takes to report
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    long after;
                    do {
                        after = ch.eventLoop().submit(() -> handler.receiveBuffers().bufferRing().returned()).get();
                    } while (after == before && System.nanoTime() < deadline);
                    assertEquals(before + 1, after, "the buffer the unknown registration's receive took is back");
                } finally {
                    Libc.close(fd);
                    if (peer[0] != null) {
                        peer[0].close();
                    }
                    ch.close().sync();
                }
            }
        }
    }
}
