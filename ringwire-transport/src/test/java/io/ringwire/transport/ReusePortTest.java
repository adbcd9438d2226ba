package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many loops on one port: a listener per loop with SO_REUSEPORT, the kernel spreading connections over
 * them, each connection served on the loop that accepted it. Without the option, a second listener on the port is
 * refused with the errno's name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReusePortTest {
    private EventLoopGroup group;
    private final List<Channel> servers = new ArrayList<>();

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (Channel s : servers) {
            s.close().sync();
        }
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    private ServerBootstrap bootstrap(EventLoop loop, ChannelInboundHandlerAdapter child, boolean reusePort) {
        return new ServerBootstrap().group(loop, loop).channel(RingwireServerSocketChannel.class)
            .option(RingwireChannelOption.SO_REUSEPORT, reusePort).childHandler(child);
    }

    @Test
    void aListenerPerLoopSharesThePortAndServesOnItsOwnLoop() throws Exception {
        int conns = 64;
        CountDownLatch accepted = new CountDownLatch(conns);
        Map<EventLoop, AtomicInteger> byLoop = new ConcurrentHashMap<>();
        AtomicInteger onAnotherLoop = new AtomicInteger();
        List<EventLoop> loops = new ArrayList<>();
        group.forEach(e -> loops.add((EventLoop) e));
        int port = 0;
        for (EventLoop loop : loops) {
            ChannelInboundHandlerAdapter child = new Counting(loop, byLoop, onAnotherLoop, accepted);
            Channel s = bootstrap(loop, child, true)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
            servers.add(s);
            port = ((InetSocketAddress) s.localAddress()).getPort();
            assertEquals(Boolean.TRUE, s.config().getOption(RingwireChannelOption.SO_REUSEPORT));
        }
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < conns; i++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
            }
            assertTrue(accepted.await(20, TimeUnit.SECONDS), "every connection accepted: " + byLoop);
        } finally {
            for (Socket c : clients) {
                c.close();
            }
        }
        assertEquals(0, onAnotherLoop.get(), "each connection lives on the loop of the listener that accepted it");
        // the kernel hashes each connection's 4-tuple to a listener: with 64 source ports, both get some (all on
        // one would take odds of 2 in 2^64)
        assertEquals(2, byLoop.size(), "both listeners accepted: " + byLoop);
    }

    /** Counts each accepted connection under the loop of its listener. */
    @ChannelHandler.Sharable
    private static final class Counting extends ChannelInboundHandlerAdapter {
        private final EventLoop loop;
        private final Map<EventLoop, AtomicInteger> byLoop;
        private final AtomicInteger onAnotherLoop;
        private final CountDownLatch accepted;

        Counting(EventLoop loop, Map<EventLoop, AtomicInteger> byLoop, AtomicInteger onAnotherLoop,
                 CountDownLatch accepted) {
            this.loop = loop;
            this.byLoop = byLoop;
            this.onAnotherLoop = onAnotherLoop;
            this.accepted = accepted;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (ctx.channel().eventLoop() != loop || ctx.channel().parent().eventLoop() != loop) {
                onAnotherLoop.incrementAndGet();
            }
            byLoop.computeIfAbsent(loop, k -> new AtomicInteger()).incrementAndGet();
            accepted.countDown();
        }
    }

    @Test
    void withoutTheOptionASecondListenerIsRefused() throws Exception {
        EventLoop loop = group.next();
        Channel first = bootstrap(loop, new ChannelInboundHandlerAdapter(), false)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        servers.add(first);
        Exception e = assertThrows(Exception.class, () -> bootstrap(group.next(), new ChannelInboundHandlerAdapter(),
            false).bind(first.localAddress()).sync());
        assertTrue(String.valueOf(e.getMessage()).contains("EADDRINUSE"), () -> "names the errno: " + e);
    }

}
