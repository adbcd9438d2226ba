package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileNotFoundException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Unix domain path with no socket at it (ENOENT) fails with a {@link FileNotFoundException}, as on Netty's native
 * channels (their EpollDomainDatagramPathTest): connecting a stream or a datagram channel to it, and sending a
 * datagram to it.
 */
class MissingSocketPathTest extends OneLoopTestBase {
    @TempDir
    Path dir;

    private DomainSocketAddress nowhere() {
        return new DomainSocketAddress(dir.resolve("nobody-here.sock").toFile());
    }

    private static Throwable failure(ChannelFuture f) throws InterruptedException {
        assertTrue(f.await(10, TimeUnit.SECONDS));
        return f.cause();
    }

    @Test
    void connectingAStreamToAPathWithNoSocket() throws Exception {
        Throwable cause = failure(new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter()).connect(nowhere()));
        assertInstanceOf(FileNotFoundException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains("nobody-here.sock"), cause.getMessage());
    }

    @Test
    void connectingADatagramChannelToAPathWithNoSocket() throws Exception {
        Throwable cause = failure(new Bootstrap().group(group).channel(RingwireDomainDatagramChannel.class)
            .handler(new ChannelInboundHandlerAdapter()).connect(nowhere()));
        assertInstanceOf(FileNotFoundException.class, cause, String.valueOf(cause));
    }

    @Test
    void sendingADatagramToAPathWithNoSocket() throws Exception {
        Channel ch = new Bootstrap().group(group).channel(RingwireDomainDatagramChannel.class)
            .handler(new ChannelInboundHandlerAdapter())
            .bind(new DomainSocketAddress(dir.resolve("sender.sock").toFile())).sync().channel();
        try {
            Throwable cause = failure(ch.writeAndFlush(new DomainDatagramPacket(
                Unpooled.copiedBuffer("test", StandardCharsets.US_ASCII), nowhere())));
            assertInstanceOf(FileNotFoundException.class, cause, String.valueOf(cause));
            assertTrue(ch.isOpen(), "the channel stays open");
        } finally {
            ch.close().sync();
        }
    }
}
