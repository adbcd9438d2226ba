package io.ringwire.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketProtocolFamily;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.channels.ClosedChannelException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A socket option set or read on a closed channel fails as Netty's native channels fail it (their
 * EpollSocketChannelConfigTest): a {@link ChannelException} caused by a {@link ClosedChannelException}, not by the
 * EBADF the kernel answers for the fd that is gone.
 */
class OptionsAfterCloseTest extends OneLoopTestBase {
    private static void failsAsClosed(Channel ch, Executable option) {
        ChannelException e = assertThrows(ChannelException.class, option, ch::toString);
        assertInstanceOf(ClosedChannelException.class, e.getCause(), ch::toString);
    }

    @Test
    void everyChannelsOptionsFailAsClosedOnceItIs() throws Exception {
        List<Channel> channels = List.of(new RingwireSocketChannel(), new RingwireServerSocketChannel(),
            new RingwireDatagramChannel(SocketProtocolFamily.INET), new RingwireDomainSocketChannel(),
            new RingwireServerDomainSocketChannel(), new RingwireDomainDatagramChannel());
        for (Channel ch : channels) {
            group.register(ch).sync();
            ch.close().sync();
            failsAsClosed(ch, () -> ch.config().getOption(ChannelOption.SO_RCVBUF));
            failsAsClosed(ch, () -> ch.config().setOption(ChannelOption.SO_RCVBUF, 65536));
        }
        RingwireSocketChannel tcp = (RingwireSocketChannel) channels.get(0);
        failsAsClosed(tcp, () -> tcp.config().setSoLinger(0));
        failsAsClosed(tcp, () -> tcp.config().getSoLinger());
        failsAsClosed(tcp, () -> tcp.config().setTcpNoDelay(true));
    }
}
