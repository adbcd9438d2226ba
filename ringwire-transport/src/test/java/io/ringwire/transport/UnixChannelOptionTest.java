package io.ringwire.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import io.netty.channel.socket.SocketProtocolFamily;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's options for any socket option by its numbers ({@link IntegerUnixChannelOption} and
 * {@link RawUnixChannelOption}), which Netty's epoll and io_uring channels take: every Ringwire channel sets and reads
 * them, the value reaches the socket (read back through the channel's own typed option), and one the kernel refuses
 * fails naming the errno.
 */
class UnixChannelOptionTest extends OneLoopTestBase {
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int SO_LINGER = 13;
    private static final int IPPROTO_IP = 0;
    private static final int IP_TTL = 2;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_KEEPCNT = 6;

    private static final IntegerUnixChannelOption KEEPCNT = new IntegerUnixChannelOption("KEEPCNT", IPPROTO_TCP,
        TCP_KEEPCNT);
    private static final IntegerUnixChannelOption RCVBUF = new IntegerUnixChannelOption("RCVBUF", SOL_SOCKET,
        SO_RCVBUF);
    private static final IntegerUnixChannelOption SNDBUF = new IntegerUnixChannelOption("SNDBUF", SOL_SOCKET,
        SO_SNDBUF);
    private static final RawUnixChannelOption LINGER = new RawUnixChannelOption("LINGER", SOL_SOCKET, SO_LINGER, 8);

    @Test
    void anIntOptionReachesATcpSocket() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            assertTrue(ch.config().setOption(KEEPCNT, 7));
            assertEquals(7, ch.config().getOption(KEEPCNT));
            assertEquals(7, ch.config().getOption(RingwireChannelOption.TCP_KEEPCNT), "the typed option sees it");
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void aRawOptionReachesATcpSocketAndReadsBack() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            // struct linger { int l_onoff; int l_linger; } in the machine's byte order
            ByteBuffer linger = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putInt(1).putInt(5).flip();
            assertTrue(ch.config().setOption(LINGER, linger));
            assertEquals(0, linger.position(), "the caller's buffer is not moved");
            assertEquals(5, ch.config().getSoLinger(), "the typed option sees it");
            ByteBuffer read = (ByteBuffer) ch.config().getOption(LINGER);
            assertEquals(8, read.remaining());
            read.order(ByteOrder.nativeOrder());
            assertEquals(1, read.getInt(0));
            assertEquals(5, read.getInt(4));
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void everyChannelTakesThem() throws Exception {
        List<Channel> channels = List.of(
            registered(RingwireServerSocketChannel::new),
            registered(() -> new RingwireDatagramChannel(SocketProtocolFamily.INET)),
            registered(RingwireDomainSocketChannel::new),
            registered(RingwireServerDomainSocketChannel::new),
            registered(RingwireDomainDatagramChannel::new));
        try {
            for (Channel ch : channels) {
                assertTrue(ch.config().setOption(RCVBUF, 65536), ch.toString());
                // Linux doubles what is asked (for its bookkeeping): the typed option reads the same socket
                int set = ch.config().getOption(RCVBUF);
                assertEquals(2 * 65536, set, ch.toString());
                assertEquals(set, ch.config().getOption(ChannelOption.SO_RCVBUF), ch.toString());
                if (ch instanceof RingwireDomainSocketChannel || ch instanceof RingwireDomainDatagramChannel) {
                    assertTrue(ch.config().setOption(SNDBUF, 32768));
                    assertEquals(ch.config().getOption(SNDBUF), ch.config().getOption(ChannelOption.SO_SNDBUF));
                }
            }
            Channel udp = channels.get(1);
            IntegerUnixChannelOption ttl = new IntegerUnixChannelOption("TTL", IPPROTO_IP, IP_TTL);
            assertTrue(udp.config().setOption(ttl, 33));
            assertEquals(33, udp.config().getOption(ttl));
        } finally {
            for (Channel ch : channels) {
                ch.close().sync();
            }
        }
    }

    @Test
    void anOptionTheKernelRefusesFailsWithItsErrno() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            IntegerUnixChannelOption bogus = new IntegerUnixChannelOption("BOGUS", SOL_SOCKET, 9999);
            ChannelException set = assertThrows(ChannelException.class, () -> ch.config().setOption(bogus, 1));
            assertTrue(String.valueOf(set.getCause()).contains("ENOPROTOOPT"), String.valueOf(set.getCause()));
            ChannelException get = assertThrows(ChannelException.class, () -> ch.config().getOption(bogus));
            assertTrue(String.valueOf(get.getCause()).contains("ENOPROTOOPT"), String.valueOf(get.getCause()));
            assertTrue(ch.isOpen(), "the channel stays usable");
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void otherOptionsAreNotTakenForThem() throws Exception {
        RingwireSocketChannel ch = registered(RingwireSocketChannel::new);
        try {
            assertFalse(SocketOptions.setUnixOption(ch, ChannelOption.SO_KEEPALIVE, true));
            assertNull(SocketOptions.getUnixOption(ch, ChannelOption.SO_KEEPALIVE));
        } finally {
            ch.close().sync();
        }
    }
}
