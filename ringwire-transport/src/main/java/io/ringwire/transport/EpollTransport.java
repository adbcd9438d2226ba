package io.ringwire.transport;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;

/**
 * Netty's epoll transport, an optional dependency: the only class of Ringwire's that names epoll's classes, loaded
 * only after {@link BestTransport.EpollPresence} found them.
 */
final class EpollTransport {
    private EpollTransport() { }

    static Throwable unavailabilityCause() {
        return Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
    }

    static IoHandlerFactory ioHandlerFactory() {
        return EpollIoHandler.newFactory();
    }

    static Class<? extends SocketChannel> socketChannelClass() {
        return EpollSocketChannel.class;
    }

    static Class<? extends ServerSocketChannel> serverSocketChannelClass() {
        return EpollServerSocketChannel.class;
    }

    static Class<? extends DatagramChannel> datagramChannelClass() {
        return EpollDatagramChannel.class;
    }

    static Class<? extends DomainSocketChannel> domainSocketChannelClass() {
        return EpollDomainSocketChannel.class;
    }

    static Class<? extends ServerDomainSocketChannel> serverDomainSocketChannelClass() {
        return EpollServerDomainSocketChannel.class;
    }

    static Class<? extends DomainDatagramChannel> domainDatagramChannelClass() {
        return EpollDomainDatagramChannel.class;
    }
}
