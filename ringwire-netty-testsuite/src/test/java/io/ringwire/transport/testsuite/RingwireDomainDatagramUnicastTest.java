package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.DatagramUnicastTest;
import org.junit.jupiter.api.AfterEach;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netty's DatagramUnicastTest over Unix domain datagram sockets (paths), Ringwire with itself and with Netty epoll, as
 * Netty's epoll module runs it for its own domain datagram channel. The cases that need the JDK's DatagramSocket skip themselves (it takes
 * no domain address), and the unresolvable-host case applies to internet addresses only.
 */
class RingwireDomainDatagramUnicastTest extends DatagramUnicastTest {
    /**
     * What a handler below found wrong: Netty's test counts its latch down whatever the handler found, and looks at
     * the handlers' errors only when the latch times out, so each test also fails here.
     */
    private final AtomicReference<Throwable> handlerFailure = new AtomicReference<>();

    @AfterEach
    void noHandlerFoundAnythingWrong() {
        Throwable t = handlerFailure.get();
        if (t != null) {
            throw new AssertionError("a handler's check failed", t);
        }
    }

    private void check(Runnable checks) {
        try {
            checks.run();
        } catch (Throwable t) {
            handlerFailure.compareAndSet(null, t);
            throw t;
        }
    }
    @Override
    protected List<BootstrapComboFactory<Bootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.domainDatagram();
    }

    private final SocketFiles socketFiles = new SocketFiles();

    @Override
    protected SocketAddress newSocketAddress() {
        return socketFiles.newAddress();
    }

    @AfterEach
    void removeSocketFiles() throws java.io.IOException {
        socketFiles.deleteAll();
    }

    @Override
    protected boolean isConnected(Channel channel) {
        return ((DomainDatagramChannel) channel).isConnected();
    }

    @Override
    protected Channel setupClientChannel(Bootstrap cb, byte[] bytes, CountDownLatch latch,
                                         AtomicReference<Throwable> errorRef) throws Throwable {
        cb.handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
            @Override
            public void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket msg) {
                try {
                    check(() -> {
                        assertContent(bytes, msg.content());
                        assertEquals(ctx.channel().localAddress(), msg.recipient());
                    });
                } finally {
                    latch.countDown();
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                errorRef.compareAndSet(null, cause);
            }
        });
        client = cb.bind(newSocketAddress()).sync().channel();
        return client;
    }

    @Override
    protected Channel setupServerChannel(Bootstrap sb, byte[] bytes, SocketAddress sender, CountDownLatch latch,
                                         AtomicReference<Throwable> errorRef, boolean echo) throws Throwable {
        sb.handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                    @Override
                    public void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket msg) {
                        try {
                            check(() -> {
                                // a sender that did not bind has no name: the empty path, as epoll says it
                                assertEquals(sender == null ? new DomainSocketAddress("") : sender, msg.sender());
                                assertContent(bytes, msg.content());
                                assertEquals(ctx.channel().localAddress(), msg.recipient());
                            });
                            if (echo) {
                                ctx.writeAndFlush(new DomainDatagramPacket(msg.content().retainedDuplicate(),
                                    msg.sender()));
                            }
                        } finally {
                            latch.countDown();
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        errorRef.compareAndSet(null, cause);
                    }
                });
            }
        });
        return sb.bind(newSocketAddress()).sync().channel();
    }

    private static void assertContent(byte[] bytes, ByteBuf buf) {
        assertEquals(bytes.length, buf.readableBytes());
        for (int i = 0; i < bytes.length; i++) {
            assertEquals(bytes[i], buf.getByte(buf.readerIndex() + i));
        }
    }

    /** The client channel of the pairing running now (set up by {@link #setupClientChannel}). */
    private Channel client;

    /**
     * Ringwire's domain datagram channel disconnects and keeps its bound name; Netty epoll's does not support it (its
     * own test says so), so the disconnect case runs where the client is Ringwire's.
     */
    @Override
    protected boolean supportDisconnect() {
        return !(client instanceof io.netty.channel.epoll.EpollDomainDatagramChannel);
    }

    @Override
    protected ChannelFuture write(Channel cc, ByteBuf buf, SocketAddress remote, WrapType wrapType) {
        DomainSocketAddress to = (DomainSocketAddress) remote;
        return switch (wrapType) {
            case DUP -> cc.write(new DomainDatagramPacket(buf.retainedDuplicate(), to));
            case SLICE -> cc.write(new DomainDatagramPacket(buf.retainedSlice(), to));
            case READ_ONLY -> cc.write(new DomainDatagramPacket(buf.retain().asReadOnly(), to));
            case NONE -> cc.write(new DomainDatagramPacket(buf.retain(), to));
        };
    }

    /** Run where Ringwire sends: see {@link EmptyDatagramSenders}. */
    @Override
    public void testSendEmptyDatagramsInOneFlush(Bootstrap sb, Bootstrap cb) throws Throwable {
        if (EmptyDatagramSenders.ringwire(cb)) {
            super.testSendEmptyDatagramsInOneFlush(sb, cb);
        }
    }
}
