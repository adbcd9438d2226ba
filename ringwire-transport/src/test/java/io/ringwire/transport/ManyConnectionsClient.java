package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of {@link ManyConnectionsTest}, in its own process (each side needs as many descriptors as there
 * are connections): opens N connections on two Ringwire loops, all of them open at once, each echoing K byte-checked
 * messages one after the other, then closes them all and prints one line of results.
 *
 * <p>Arguments: port, connections, messages per connection, message size.
 */
public final class ManyConnectionsClient {
    private ManyConnectionsClient() { }

    static byte expected(int conn, int message, int i) {
        return (byte) (conn * 131 + message * 17 + i);
    }

    private static final class PingPong extends ChannelInboundHandlerAdapter {
        final int conn;
        final int messages;
        final int size;
        final CountDownLatch echoed;
        final AtomicLong errors;
        final ConcurrentLinkedQueue<String> firstErrors;
        int message;
        int received;

        PingPong(int conn, int messages, int size, CountDownLatch echoed, AtomicLong errors,
                 ConcurrentLinkedQueue<String> firstErrors) {
            this.conn = conn;
            this.messages = messages;
            this.size = size;
            this.echoed = echoed;
            this.errors = errors;
            this.firstErrors = firstErrors;
        }

        private void send(ChannelHandlerContext ctx) {
            byte[] b = new byte[size];
            for (int i = 0; i < size; i++) {
                b[i] = expected(conn, message, i);
            }
            ctx.writeAndFlush(Unpooled.wrappedBuffer(b));
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            send(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                while (b.isReadable()) {
                    if (b.readByte() != expected(conn, message, received)) {
                        fail("connection " + conn + " message " + message + " byte " + received + " differs");
                    }
                    if (++received == size) {
                        received = 0;
                        if (++message == messages) {
                            echoed.countDown();
                        } else {
                            send(ctx);
                        }
                    }
                }
            } finally {
                b.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail("connection " + conn + ": " + cause);
            ctx.close();
        }

        private void fail(String what) {
            if (errors.incrementAndGet() <= 5) {
                firstErrors.add(what);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        int messages = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        io.ringwire.uring.OpenFileLimit.raise(connections + 1_000);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
        AtomicLong errors = new AtomicLong();
        ConcurrentLinkedQueue<String> firstErrors = new ConcurrentLinkedQueue<>();
        CountDownLatch echoed = new CountDownLatch(connections);
        List<Channel> channels = new ArrayList<>(connections);
        Semaphore connecting = new Semaphore(256); // the listener's backlog is not 10,000 deep
        long start = System.nanoTime();
        try {
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
            for (int c = 0; c < connections; c++) {
                connecting.acquire();
                PingPong handler = new PingPong(c, messages, size, echoed, errors, firstErrors);
                Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000).handler(handler)
                    .connect(server).addListener(f -> {
                        connecting.release();
                        if (!f.isSuccess()) {
                            handler.fail("connect " + handler.conn + ": " + f.cause());
                            echoed.countDown();
                        }
                    }).channel();
                channels.add(ch);
            }
            boolean all = echoed.await(120, TimeUnit.SECONDS);
            long open = channels.stream().filter(Channel::isActive).count();
            for (Channel ch : channels) {
                ch.close();
            }
            for (Channel ch : channels) {
                ch.closeFuture().await(30, TimeUnit.SECONDS);
            }
            System.out.println("RESULT connections=" + connections + " openAtEnd=" + open + " allEchoed=" + all
                + " errors=" + errors.get() + " seconds=" + (System.nanoTime() - start) / 1e9
                + " firstErrors=" + firstErrors);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        System.exit(errors.get() == 0 ? 0 : 1);
    }
}
