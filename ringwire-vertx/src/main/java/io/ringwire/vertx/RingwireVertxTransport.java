package io.ringwire.vertx;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.DomainSocketAddress;
import io.ringwire.transport.Ringwire;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireDomainSocketChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerDomainSocketChannel;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.TcpConfig;
import io.vertx.core.net.TcpOption;
import io.vertx.core.spi.transport.Transport;

import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;

/**
 * Vert.x's transport SPI on Ringwire: its event loops, TCP and Unix domain socket channels, the datagram channel its
 * DNS resolver and datagram sockets use, and the TCP options Vert.x knows mapped to Ringwire's (as Vert.x's epoll
 * transport maps them to Netty's). Users pass {@link RingwireTransport#RINGWIRE} to
 * {@code Vertx.builder().withTransport(...)}.
 */
public final class RingwireVertxTransport implements Transport {
    private final RingwireIoHandlerConfig config;

    /** @param config the Ringwire configuration of every event loop Vert.x makes */
    public RingwireVertxTransport(RingwireIoHandlerConfig config) {
        this.config = config;
    }

    /** With the default Ringwire configuration. */
    public RingwireVertxTransport() {
        this(RingwireIoHandlerConfig.builder().build());
    }

    @Override
    public boolean supportsDomainSockets() {
        return true;
    }

    /** FileRegion works on every Ringwire stream channel (sendfile for a file's region): Vert.x's sendFile uses it. */
    @Override
    public boolean supportFileRegion() {
        return true;
    }

    @Override
    public boolean isAvailable() {
        return Ringwire.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ringwire.unavailabilityCause();
    }

    @Override
    public SocketAddress convert(io.vertx.core.net.SocketAddress address) {
        if (address.isDomainSocket()) {
            return new DomainSocketAddress(address.path());
        }
        return Transport.super.convert(address);
    }

    @Override
    public io.vertx.core.net.SocketAddress convert(SocketAddress address) {
        if (address instanceof DomainSocketAddress d) {
            return io.vertx.core.net.SocketAddress.domainSocketAddress(d.path());
        }
        return Transport.super.convert(address);
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
        return RingwireIoHandler.newFactory(config);
    }

    /** One channel serves IPv4 and IPv6 (its socket is made for the family of the first address it meets). */
    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
        return new RingwireDatagramChannel();
    }

    @Override
    public ChannelFactory<? extends DatagramChannel> datagramChannelFactory() {
        return RingwireDatagramChannel::new;
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
        return domainSocket ? RingwireDomainSocketChannel::new : RingwireSocketChannel::new;
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
        return domainSocket ? RingwireServerDomainSocketChannel::new : RingwireServerSocketChannel::new;
    }

    /**
     * Vert.x's own configuration, then its multicast options, which Vert.x applies for its NIO transport only (its
     * epoll and io_uring transports leave them unset): multicast loopback, time to live and the interface multicast
     * leaves by. Ringwire's datagram channel has all three, as NIO's does.
     */
    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
        channel.config().setOption(RingwireChannelOption.SO_REUSEPORT, options.isReusePort());
        Transport.super.configure(channel, options);
        channel.config().setLoopbackModeDisabled(options.isLoopbackModeDisabled());
        if (options.getMulticastTimeToLive() != -1) {
            channel.config().setTimeToLive(options.getMulticastTimeToLive());
        }
        String name = options.getMulticastNetworkInterface();
        if (name != null) {
            NetworkInterface ni;
            try {
                ni = NetworkInterface.getByName(name);
            } catch (SocketException e) {
                ni = null;
            }
            if (ni == null) {
                throw new IllegalArgumentException("Could not find network interface with name " + name);
            }
            channel.config().setNetworkInterface(ni);
        }
    }

    @Override
    public void configure(TcpConfig tcp, boolean domainSocket, ServerBootstrap bootstrap) {
        if (!domainSocket) {
            bootstrap.option(RingwireChannelOption.SO_REUSEPORT, tcp.isSoReusePort());
            option(bootstrap, tcp, TcpOption.FASTOPEN, ChannelOption.TCP_FASTOPEN);
            childOption(bootstrap, tcp, TcpOption.USER_TIMEOUT,
                RingwireChannelOption.TCP_USER_TIMEOUT);
            childOption(bootstrap, tcp, TcpOption.QUICKACK, RingwireChannelOption.TCP_QUICKACK);
            childOption(bootstrap, tcp, TcpOption.CORK, RingwireChannelOption.TCP_CORK);
            if (positive(tcp, TcpOption.KEEPCNT)) {
                childOption(bootstrap, tcp, TcpOption.KEEPCNT, RingwireChannelOption.TCP_KEEPCNT);
            }
            if (positive(tcp, TcpOption.KEEPINTVL)) {
                childOption(bootstrap, tcp, TcpOption.KEEPINTVL,
                    RingwireChannelOption.TCP_KEEPINTVL);
            }
            if (positive(tcp, TcpOption.KEEPIDLE)) {
                childOption(bootstrap, tcp, TcpOption.KEEPIDLE,
                    RingwireChannelOption.TCP_KEEPIDLE);
            }
        }
        Transport.super.configure(tcp, domainSocket, bootstrap);
    }

    @Override
    public void configure(TcpConfig tcp, boolean domainSocket, Bootstrap bootstrap) {
        if (!domainSocket) {
            option(bootstrap, tcp, TcpOption.FASTOPEN_CONNECT, ChannelOption.TCP_FASTOPEN_CONNECT);
            option(bootstrap, tcp, TcpOption.USER_TIMEOUT, RingwireChannelOption.TCP_USER_TIMEOUT);
            option(bootstrap, tcp, TcpOption.QUICKACK, RingwireChannelOption.TCP_QUICKACK);
            option(bootstrap, tcp, TcpOption.CORK, RingwireChannelOption.TCP_CORK);
            if (positive(tcp, TcpOption.KEEPCNT)) {
                option(bootstrap, tcp, TcpOption.KEEPCNT, RingwireChannelOption.TCP_KEEPCNT);
            }
            if (positive(tcp, TcpOption.KEEPINTVL)) {
                option(bootstrap, tcp, TcpOption.KEEPINTVL, RingwireChannelOption.TCP_KEEPINTVL);
            }
            if (positive(tcp, TcpOption.KEEPIDLE)) {
                option(bootstrap, tcp, TcpOption.KEEPIDLE, RingwireChannelOption.TCP_KEEPIDLE);
            }
        }
        Transport.super.configure(tcp, domainSocket, bootstrap);
    }

    /** Sets {@code option} to Vert.x's value of {@code tcpOption}, if it has one (Vert.x's own transports' helper). */
    private static <T> void option(AbstractBootstrap<?, ?> bootstrap, TcpConfig tcp, TcpOption<T> tcpOption,
                                   ChannelOption<T> option) {
        T value = tcp.getOption(tcpOption);
        if (value != null) {
            bootstrap.option(option, value);
        }
    }

    /** {@link #option}, for the channels a server accepts. */
    private static <T> void childOption(ServerBootstrap bootstrap, TcpConfig tcp, TcpOption<T> tcpOption,
                                        ChannelOption<T> option) {
        T value = tcp.getOption(tcpOption);
        if (value != null) {
            bootstrap.childOption(option, value);
        }
    }

    /** Vert.x leaves keep-alive counts and intervals at 0 to mean "the kernel's default". */
    private static boolean positive(TcpConfig tcp, TcpOption<Integer> option) {
        Integer v = tcp.getOption(option);
        return v != null && v > 0;
    }
}
