package io.ringwire.transport;

import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket options Netty's epoll and io_uring transports offer beyond the standard ones (TCP_CORK,
 * TCP_NOTSENT_LOWAT, TCP_DEFER_ACCEPT, IP_FREEBIND, IP_TRANSPARENT, IP_BIND_ADDRESS_NO_PORT, IP_MULTICAST_ALL) reach
 * the socket on Ringwire's channels, under Ringwire's constants and under Netty's own: bootstrap code written for those
 * transports ({@code EpollChannelOption.TCP_KEEPIDLE}, {@code IoUringChannelOption.TCP_CORK},
 * {@code UnixChannelOption.SO_REUSEPORT}) keeps its options when its channels become Ringwire's.
 */
class NettyTransportOptionsTest extends OneLoopTestBase {

    @Test
    void aTcpSocketTakesCorkLowWaterMarkFreebindAndNoPortBinding() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            RingwireSocketChannelConfig c = ch.config();
            assertFalse(c.getOption(RingwireChannelOption.TCP_CORK));
            assertTrue(c.setOption(RingwireChannelOption.TCP_CORK, true));
            assertTrue(c.getOption(RingwireChannelOption.TCP_CORK));
            assertTrue(c.setOption(RingwireChannelOption.TCP_NOTSENT_LOWAT, 0xFFFF_FFF0L), "an unsigned value");
            assertEquals(0xFFFF_FFF0L, c.getOption(RingwireChannelOption.TCP_NOTSENT_LOWAT));
            assertTrue(c.setOption(RingwireChannelOption.IP_FREEBIND, true));
            assertTrue(c.getOption(RingwireChannelOption.IP_FREEBIND));
            assertTrue(c.setOption(RingwireChannelOption.IP_BIND_ADDRESS_NO_PORT, true));
            assertTrue(c.getOption(RingwireChannelOption.IP_BIND_ADDRESS_NO_PORT));
            assertTrue(c.getOptions().containsKey(RingwireChannelOption.TCP_CORK), "listed by getOptions()");
            IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> c.setOption(RingwireChannelOption.TCP_NOTSENT_LOWAT, 1L << 32));
            assertTrue(tooLarge.getMessage().contains("4294967295"), tooLarge.getMessage());
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void nettysOwnOptionConstantsSetRingwiresTwins() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            RingwireSocketChannelConfig c = ch.config();
            assertTrue(c.setOption(EpollChannelOption.TCP_KEEPIDLE, 77));
            assertEquals(77, c.getOption(RingwireChannelOption.TCP_KEEPIDLE), "the socket has it");
            assertEquals(77, c.getOption(EpollChannelOption.TCP_KEEPIDLE));
            assertTrue(c.setOption(IoUringChannelOption.TCP_CORK, true));
            assertTrue(c.getOption(RingwireChannelOption.TCP_CORK));
            assertTrue(c.setOption(EpollChannelOption.TCP_NOTSENT_LOWAT, 16_384L));
            assertEquals(16_384L, c.getOption(IoUringChannelOption.TCP_NOTSENT_LOWAT));
            assertTrue(c.setOption(UnixChannelOption.SO_REUSEPORT, true));
            assertTrue(c.getOption(RingwireChannelOption.SO_REUSEPORT));
            assertSame(RingwireChannelOption.IP_FREEBIND, EpollChannelOption.IP_FREEBIND, "one constant in the pool");
            assertSame(RingwireChannelOption.IP_TRANSPARENT, IoUringChannelOption.IP_TRANSPARENT);
            assertSame(RingwireChannelOption.TCP_MD5SIG, EpollChannelOption.TCP_MD5SIG, "one constant (TcpMd5Test)");
            assertTrue(c.setOption(EpollChannelOption.TCP_MD5SIG, java.util.Map.of()));
            assertFalse(c.setOption(EpollChannelOption.SO_BUSY_POLL, 50), "one Ringwire lacks: unknown");
            assertNull(c.getOption(EpollChannelOption.SO_BUSY_POLL));
            assertFalse(c.setOption(EpollChannelOption.TCP_DEFER_ACCEPT, 5), "a listener's option, on a connection");
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void aListenerTakesDeferAcceptAndFreebind() throws Exception {
        RingwireServerSocketChannel ch = registered(RingwireServerSocketChannel::new);
        try {
            RingwireServerSocketChannelConfig c = ch.config();
            assertTrue(c.setOption(RingwireChannelOption.TCP_DEFER_ACCEPT, 5));
            // the kernel keeps it as SYN-ACK retransmissions and answers the seconds those take (1 + 2 + 4)
            assertTrue(c.getOption(RingwireChannelOption.TCP_DEFER_ACCEPT) >= 5);
            assertTrue(c.setOption(EpollChannelOption.TCP_DEFER_ACCEPT, 0), "through Netty's epoll constant");
            assertEquals(0, c.getOption(RingwireChannelOption.TCP_DEFER_ACCEPT));
            assertTrue(c.setOption(RingwireChannelOption.IP_FREEBIND, true));
            assertTrue(c.getOption(EpollChannelOption.IP_FREEBIND));
            assertTrue(c.getOptions().containsKey(RingwireChannelOption.TCP_DEFER_ACCEPT));
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void aDatagramSocketTakesMulticastAllAndFreebind() throws Exception {
        RingwireDatagramChannel ch = registered(() -> new RingwireDatagramChannel(InternetProtocolFamily.IPv4));
        try {
            RingwireDatagramChannelConfig c = ch.config();
            assertTrue(c.getOption(RingwireChannelOption.IP_MULTICAST_ALL), "the kernel's default");
            assertTrue(c.setOption(IoUringChannelOption.IP_MULTICAST_ALL, false));
            assertFalse(c.getOption(RingwireChannelOption.IP_MULTICAST_ALL));
            assertTrue(c.setOption(RingwireChannelOption.IP_FREEBIND, true));
            assertTrue(c.getOption(RingwireChannelOption.IP_FREEBIND));
        } finally {
            ch.close().sync();
        }
    }

    /** IP_TRANSPARENT needs CAP_NET_ADMIN: with it the socket takes it; without, the failure names EPERM. */
    @Test
    void transparentIsSetOrRefusedByName() throws Exception {
        RingwireServerSocketChannel ch = registered(RingwireServerSocketChannel::new);
        try {
            ChannelOption<Boolean> transparent = EpollChannelOption.IP_TRANSPARENT;
            try {
                assertTrue(ch.config().setOption(transparent, true));
                assertTrue(ch.config().getOption(transparent));
            } catch (ChannelException e) {
                NativeIoException cause = assertInstanceOf(NativeIoException.class, e.getCause());
                assertEquals(Errno.EPERM, cause.errno());
                assertTrue(cause.getMessage().contains("EPERM"), cause.getMessage());
            }
        } finally {
            ch.close().sync();
        }
    }
}
