package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;

/**
 * Netty's testsuite 4.2.20 sends empty datagrams between others in one flush (testSendEmptyDatagramsInOneFlush) and
 * expects each to arrive. Netty 4.2.18's own datagram channels, the build's NIO and epoll peers, drop an empty
 * datagram before the system call ({@code doWriteMessage} returns at 0 readable bytes in NioDatagramChannel,
 * EpollDatagramChannel and EpollDomainDatagramChannel), so with one of them sending nothing empty can arrive. The case
 * runs for every pairing where Ringwire sends, to each receiver; the others are passed over (a JUnit assumption would
 * end the case at the first of them, before the pairings after it ran). Ringwire receives empty datagrams from NIO and
 * epoll in testReceiveEmptyDatagrams.
 */
final class EmptyDatagramSenders {
    private EmptyDatagramSenders() { }

    /** @return whether {@code sender} makes a Ringwire channel */
    static boolean ringwire(Bootstrap sender) {
        Channel probe = sender.config().channelFactory().newChannel();
        try {
            return probe.getClass().getName().startsWith("io.ringwire.");
        } finally {
            probe.unsafe().closeForcibly();
        }
    }
}
