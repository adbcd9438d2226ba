package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netty's ServerSocketSuspendTest, checked by what is accepted rather than by how long the clients waited (the
 * testsuite's own version asserts a duration and is disabled upstream): a listener with autoRead off accepts nothing,
 * the connections wait in its backlog, and turning autoRead on accepts every one; off and on again, the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AcceptSuspensionTest extends OneLoopTestBase {
    private static final int WAVE = 10;

    @ChannelHandler.Sharable
    private static final class CountActive extends ChannelInboundHandlerAdapter {
        final AtomicInteger active = new AtomicInteger();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.incrementAndGet();
        }
    }

    @Test
    void aSuspendedListenerAcceptsNothingUntilResumedThenEveryWaitingConnection() throws Exception {
        CountActive counter = new CountActive();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 64).option(ChannelOption.AUTO_READ, false).childHandler(counter)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        List<Socket> clients = new ArrayList<>();
        try {
            for (int round = 1; round <= 2; round++) {
                for (int i = 0; i < WAVE; i++) {
                    clients.add(new Socket(InetAddress.getLoopbackAddress(),
                        ((InetSocketAddress) server.localAddress()).getPort()));
                }
                // a few of the loop's iterations: an accept, had one been armed, would have completed by now
                for (int i = 0; i < 10; i++) {
                    server.eventLoop().submit(() -> { }).sync();
                    Thread.sleep(5);
                }
                assertEquals((round - 1) * WAVE, counter.active.get(), "nothing accepted while suspended");
                server.config().setAutoRead(true);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (counter.active.get() < round * WAVE && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(round * WAVE, counter.active.get(), "every waiting connection accepted once resumed");
                server.config().setAutoRead(false);
                server.eventLoop().submit(() -> { }).sync();
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            server.close().sync();
        }
    }
}
