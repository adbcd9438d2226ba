package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SO_LINGER above 0 makes close(2) wait while the peer has not taken the unsent bytes. That wait must not be the
 * event loop's: a connection whose peer never reads is closed with a 30 s linger, and a task the loop is given just
 * after runs while that close is still waiting (if the loop did the waiting, the task could only run after it, and
 * would see the close done). The peer then goes away, which ends the wait, and the close completes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LingerCloseTest extends OneLoopTestBase {
    @Test
    void aLingeringCloseDoesNotHoldTheLoop() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.SO_LINGER, 30).option(ChannelOption.SO_SNDBUF, 64 * 1024)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(listener.getLocalSocketAddress()).sync().channel();
            Socket peer = listener.accept();
            peer.setReceiveBufferSize(64 * 1024);
            // fill the path: the peer never reads, so the kernel keeps unsent bytes once both buffers are full
            byte[] chunk = new byte[256 * 1024];
            java.util.List<ChannelFuture> writes = new java.util.ArrayList<>();
            while (ch.isWritable()) {
                writes.add(ch.writeAndFlush(Unpooled.wrappedBuffer(chunk)));
            }
            // and let the write in flight reach the kernel
            ch.eventLoop().submit(() -> { }).sync();
            assertEquals(30, ch.config().getOption(ChannelOption.SO_LINGER));

            ChannelFuture closed = ch.close();
            boolean doneWhenLoopRan = ch.eventLoop().submit(closed::isDone).get(20, TimeUnit.SECONDS);
            assertFalse(doneWhenLoopRan, "the loop ran a task while the lingering close waited");

            peer.setSoLinger(true, 0);
            peer.close(); // RST: the lingering close(2) returns
            assertTrue(closed.await(20, TimeUnit.SECONDS), "the close completed");
            assertFalse(ch.isOpen());
            assertFalse(((RingwireSocketChannel) ch).fd().isOpen(), "the fd was closed");
            assertTrue(ch.closeFuture().isSuccess(), () -> String.valueOf(ch.closeFuture().cause()));
            // what the kernel never took is failed back on the loop after close(2), as on every transport
            for (ChannelFuture f : writes) {
                assertTrue(f.await(20, TimeUnit.SECONDS), "every write finished, written or failed");
            }
        }
    }

    /** Netty's testSoLingerNoAssertError (netty 7159): a bound, never connected socket with SO_LINGER closes. */
    @Test
    void aBoundSocketThatNeverConnectedClosesWithLinger() throws Exception {
        Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .option(ChannelOption.SO_LINGER, 10)
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        assertTrue(ch.close().await(30, TimeUnit.SECONDS), "closed");
        assertTrue(ch.closeFuture().isSuccess());
    }
}
