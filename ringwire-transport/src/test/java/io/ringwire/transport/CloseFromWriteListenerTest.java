package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A write's completion removes the written buffers, and a listener of one of their promises closes the channel
 * (Vert.x's HTTP client does this when its last chunk follows an empty buffer whose promise ends the request). The
 * close must not write again what that completion has just sent: it did, with one synchronous sendmsg, so the peer got
 * the last chunk twice, and the outbound buffer's accounting failed (an AssertionError under -ea, out of the event
 * loop, which then died; Vert.x's close waited for it forever).
 */
class CloseFromWriteListenerTest extends OneLoopTestBase {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aCloseFromAWrittenBuffersListenerDoesNotWriteItAgain() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(listener.getLocalSocketAddress()).sync().channel();
            try (Socket peer = listener.accept()) {
                ch.eventLoop().submit(() -> {
                    // one SENDMSG carries both; its completion removes the empty buffer first, whose listener closes
                    ch.write(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                    ch.writeAndFlush(Unpooled.copiedBuffer("0\r\n\r\n", StandardCharsets.US_ASCII));
                }).sync();
                InputStream in = peer.getInputStream();
                String received = new String(in.readAllBytes(), StandardCharsets.US_ASCII); // to the close's EOF
                assertEquals("0\r\n\r\n", received, "the last chunk, once");
            }
            ch.closeFuture().sync();
            assertEquals(true, ch.eventLoop().submit(() -> true).get(10, TimeUnit.SECONDS), "the loop still runs");
        }
    }
}
