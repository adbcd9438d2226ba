package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A CQ far too small for the load: 200 connections' data waits while the loop is held, so its next enter has to post
 * about 200 receive completions into a CQ of 16. The kernel keeps the rest on its overflow list (FEAT_NODROP); every
 * echo must still come back whole and in order, with no stall, and the loop counts the overflow it saw (netty issue
 * 15502 was a stall here).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CqOverflowTest {
    private static final int CONNECTIONS = 200;
    private static final int ROUNDS = 5;
    private static final int SIZE = 1000;

    private static byte[] message(int conn, int round) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = (byte) (conn * 7 + round * 13 + i);
        }
        return b;
    }

    @Test
    void everyEchoArrivesThroughAFullCompletionQueue() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(
            RingwireIoHandlerConfig.builder().ringEntries(16).cqEntries(16).build()));
        List<Socket> clients = new ArrayList<>();
        try {
            TrackingEcho echo = new TrackingEcho(CONNECTIONS);
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .childHandler(echo).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            for (int c = 0; c < CONNECTIONS; c++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress())
                    .getPort());
                s.setTcpNoDelay(true);
                clients.add(s);
            }
            assertTrue(echo.active.await(30, TimeUnit.SECONDS), "every connection accepted");
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            for (int round = 0; round < ROUNDS; round++) {
                // hold the loop while every client's message arrives: its next enter then completes them all at once
                CountDownLatch release = OneLoopTestBase.hold(server.eventLoop());
                for (int c = 0; c < CONNECTIONS; c++) {
                    OutputStream out = clients.get(c).getOutputStream();
                    out.write(message(c, round));
                    out.flush();
                }
                release.countDown();
                for (int c = 0; c < CONNECTIONS; c++) {
                    InputStream in = clients.get(c).getInputStream();
                    assertArrayEquals(message(c, round), in.readNBytes(SIZE), "connection " + c + ", round " + round);
                }
            }
            long overflows = server.eventLoop().submit(counters::cqOverflows).get();
            assertTrue(overflows > 0, () -> "the CQ overflowed and the loop saw it: " + counters);
            server.close().sync();
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
