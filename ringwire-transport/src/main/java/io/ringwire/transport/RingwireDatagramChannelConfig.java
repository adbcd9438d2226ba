package io.ringwire.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DatagramChannelConfig;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Map;

import static io.ringwire.uring.SocketConstants.*;

/**
 * Options of a {@link RingwireDatagramChannel}; socket options go straight to the kernel. Receives are sized by the
 * {@link RecvByteBufAllocator} as in Netty (2048 bytes by default): a datagram that does not fit is reported, never
 * silently cut (see {@link DatagramTruncatedException}).
 */
public final class RingwireDatagramChannelConfig extends DefaultChannelConfig implements DatagramChannelConfig {
    /** Socket options of one int that this config takes beside those its own methods name. */
    private static final Map<ChannelOption<?>, SocketOptions.IntSockopt> INTS = Map.of(
        RingwireChannelOption.IP_MULTICAST_ALL, new SocketOptions.IntSockopt(IPPROTO_IP, IP_MULTICAST_ALL,
            Boolean.class),
        RingwireChannelOption.IP_FREEBIND, SocketOptions.FREEBIND,
        RingwireChannelOption.IP_TRANSPARENT, SocketOptions.TRANSPARENT);

    private final RingwireDatagramChannel channel;
    private volatile boolean activeOnOpen;
    /** The interface multicast leaves by (IP_MULTICAST_IF), as last set; null: the kernel's choice. */
    private volatile NetworkInterface multicastInterface;
    private volatile boolean udpGro;
    private volatile boolean recvOrigDstAddr;
    private volatile int maxDatagramPayloadSize;

    RingwireDatagramChannelConfig(RingwireDatagramChannel channel) {
        super(channel, new FixedRecvByteBufAllocator(2048)); // Netty's default for datagrams
        this.channel = channel;
    }

    private int fd() {
        return channel.fd;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(getOptions(super.getOptions(), ChannelOption.SO_BROADCAST, ChannelOption.SO_RCVBUF,
            ChannelOption.SO_SNDBUF, ChannelOption.SO_REUSEADDR, ChannelOption.IP_MULTICAST_LOOP_DISABLED,
            ChannelOption.IP_MULTICAST_TTL, ChannelOption.IP_TOS, RingwireChannelOption.SO_REUSEPORT,
            ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION, ChannelOption.IP_MULTICAST_IF,
            RingwireChannelOption.UDP_GRO, RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE,
            RingwireChannelOption.IP_RECVORIGDSTADDR),
            INTS.keySet().toArray(new ChannelOption<?>[0]));
    }

    @Override
    @SuppressWarnings({"unchecked", "deprecation"})
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BROADCAST) {
            return (T) Boolean.valueOf(isBroadcast());
        }
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(getReceiveBufferSize());
        }
        if (option == ChannelOption.SO_SNDBUF) {
            return (T) Integer.valueOf(getSendBufferSize());
        }
        if (option == ChannelOption.SO_REUSEADDR) {
            return (T) Boolean.valueOf(isReuseAddress());
        }
        if (option == ChannelOption.IP_MULTICAST_LOOP_DISABLED) {
            return (T) Boolean.valueOf(isLoopbackModeDisabled());
        }
        if (option == ChannelOption.IP_MULTICAST_TTL) {
            return (T) Integer.valueOf(getTimeToLive());
        }
        if (option == ChannelOption.IP_TOS) {
            return (T) Integer.valueOf(getTrafficClass());
        }
        if (option == ChannelOption.IP_MULTICAST_IF) {
            return (T) getNetworkInterface();
        }
        if (option == RingwireChannelOption.SO_REUSEPORT) {
            return (T) Boolean.valueOf(SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEPORT));
        }
        if (option == ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION) {
            return (T) Boolean.valueOf(activeOnOpen);
        }
        if (option == RingwireChannelOption.UDP_GRO) {
            return (T) Boolean.valueOf(isUdpGro());
        }
        if (option == RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE) {
            return (T) Integer.valueOf(getMaxDatagramPayloadSize());
        }
        if (option == RingwireChannelOption.IP_RECVORIGDSTADDR) {
            return (T) Boolean.valueOf(isRecvOrigDstAddr());
        }
        Object other = SocketOptions.getOther(this, channel, option, INTS);
        return other != null ? (T) other : super.getOption(option);
    }

    @Override
    @SuppressWarnings("deprecation")
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BROADCAST) {
            setBroadcast((Boolean) value);
        } else if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_SNDBUF) {
            setSendBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == ChannelOption.IP_MULTICAST_LOOP_DISABLED) {
            setLoopbackModeDisabled((Boolean) value);
        } else if (option == ChannelOption.IP_MULTICAST_TTL) {
            setTimeToLive((Integer) value);
        } else if (option == ChannelOption.IP_TOS) {
            setTrafficClass((Integer) value);
        } else if (option == ChannelOption.IP_MULTICAST_IF) {
            setNetworkInterface((NetworkInterface) value);
        } else if (option == RingwireChannelOption.SO_REUSEPORT) {
            SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEPORT, (Boolean) value);
        } else if (option == ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION) {
            setActiveOnOpen((Boolean) value);
        } else if (option == RingwireChannelOption.UDP_GRO) {
            setUdpGro((Boolean) value);
        } else if (option == RingwireChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE) {
            setMaxDatagramPayloadSize((Integer) value);
        } else if (option == RingwireChannelOption.IP_RECVORIGDSTADDR) {
            setRecvOrigDstAddr((Boolean) value);
        } else {
            return SocketOptions.setOther(this, channel, option, value, INTS) || super.setOption(option, value);
        }
        return true;
    }

    /** @return whether the channel is active (can send) as soon as it is registered, before bind or connect */
    public boolean isActiveOnOpen() {
        return activeOnOpen;
    }

    private void setActiveOnOpen(boolean activeOnOpen) {
        if (channel.isRegistered()) {
            throw new IllegalStateException("DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION can only be set before the "
                + "channel is registered");
        }
        this.activeOnOpen = activeOnOpen;
    }

    /** @return whether the kernel may coalesce datagrams into one receive ({@link RingwireChannelOption#UDP_GRO}) */
    public boolean isUdpGro() {
        return udpGro;
    }

    /**
     * Sets {@link RingwireChannelOption#UDP_GRO}. Best set before the channel is bound (as a Bootstrap option): set
     * on a channel that is receiving, it cancels the receive from the loop's ring, but a batch the kernel put in a
     * ring buffer before that is cut, and reported ({@link DatagramTruncatedException}).
     *
     * @param udpGro whether the kernel may coalesce received datagrams into one buffer
     * @return this
     */
    public RingwireDatagramChannelConfig setUdpGro(boolean udpGro) {
        SocketOptions.setBoolean(channel, IPPROTO_UDP, UDP_GRO, udpGro);
        this.udpGro = udpGro;
        if (udpGro) {
            channel.rearmReceive();
        }
        return this;
    }

    /**
     * @return whether each packet's recipient is where it was sent ({@link RingwireChannelOption#IP_RECVORIGDSTADDR})
     */
    public boolean isRecvOrigDstAddr() {
        return recvOrigDstAddr;
    }

    /**
     * Sets {@link RingwireChannelOption#IP_RECVORIGDSTADDR} (and IPV6_RECVORIGDSTADDR on an IPv6 socket). Set on a
     * channel already receiving, it cancels the receive from the ring, so the next one brings the control message.
     *
     * @param on whether each packet's original destination is received with it
     * @return this
     */
    public RingwireDatagramChannelConfig setRecvOrigDstAddr(boolean on) {
        SocketOptions.setBoolean(channel, IPPROTO_IP, IP_RECVORIGDSTADDR, on);
        if (channel.isIpv6()) {
            SocketOptions.setBoolean(channel, IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, on);
        }
        this.recvOrigDstAddr = on;
        if (on) {
            channel.rearmReceive();
        }
        return this;
    }

    /** @return the largest datagram expected, or 0 ({@link RingwireChannelOption#MAX_DATAGRAM_PAYLOAD_SIZE}) */
    public int getMaxDatagramPayloadSize() {
        return maxDatagramPayloadSize;
    }

    /**
     * Sets {@link RingwireChannelOption#MAX_DATAGRAM_PAYLOAD_SIZE}.
     *
     * @param maxDatagramPayloadSize 0 (the RecvByteBufAllocator's size) to 65,535 bytes
     * @return this
     */
    public RingwireDatagramChannelConfig setMaxDatagramPayloadSize(int maxDatagramPayloadSize) {
        if (maxDatagramPayloadSize < 0 || maxDatagramPayloadSize > 65_535) {
            throw new IllegalArgumentException("MAX_DATAGRAM_PAYLOAD_SIZE: " + maxDatagramPayloadSize
                + " (expected 0, for the RecvByteBufAllocator's size, to 65535)");
        }
        this.maxDatagramPayloadSize = maxDatagramPayloadSize;
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_SNDBUF);
    }

    @Override
    public RingwireDatagramChannelConfig setSendBufferSize(int sendBufferSize) {
        SocketOptions.set(channel, SOL_SOCKET, SO_SNDBUF, sendBufferSize);
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF);
    }

    @Override
    public RingwireDatagramChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, receiveBufferSize);
        return this;
    }

    @Override
    public int getTrafficClass() {
        return SocketOptions.trafficClass(channel, channel.isIpv6());
    }

    @Override
    public RingwireDatagramChannelConfig setTrafficClass(int trafficClass) {
        SocketOptions.setTrafficClass(channel, channel.isIpv6(), trafficClass);
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEADDR);
    }

    @Override
    public RingwireDatagramChannelConfig setReuseAddress(boolean reuseAddress) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEADDR, reuseAddress);
        return this;
    }

    @Override
    public boolean isBroadcast() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_BROADCAST);
    }

    @Override
    public RingwireDatagramChannelConfig setBroadcast(boolean broadcast) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_BROADCAST, broadcast);
        return this;
    }

    @Override
    public boolean isLoopbackModeDisabled() {
        return channel.isIpv6() ? !SocketOptions.getBoolean(channel, IPPROTO_IPV6, IPV6_MULTICAST_LOOP)
            : !SocketOptions.getBoolean(channel, IPPROTO_IP, IP_MULTICAST_LOOP);
    }

    @Override
    public RingwireDatagramChannelConfig setLoopbackModeDisabled(boolean loopbackModeDisabled) {
        if (channel.isIpv6()) {
            SocketOptions.setBoolean(channel, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, !loopbackModeDisabled);
        }
        SocketOptions.setBoolean(channel, IPPROTO_IP, IP_MULTICAST_LOOP, !loopbackModeDisabled);
        return this;
    }

    @Override
    public int getTimeToLive() {
        return channel.isIpv6() ? SocketOptions.get(channel, IPPROTO_IPV6, IPV6_MULTICAST_HOPS)
            : SocketOptions.get(channel, IPPROTO_IP, IP_MULTICAST_TTL);
    }

    @Override
    public RingwireDatagramChannelConfig setTimeToLive(int ttl) {
        if (channel.isIpv6()) {
            SocketOptions.set(channel, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, ttl);
        }
        SocketOptions.set(channel, IPPROTO_IP, IP_MULTICAST_TTL, ttl);
        return this;
    }

    /** @return an address of the multicast interface, of the socket's family where it has one; null if not set */
    @Override
    public InetAddress getInterface() {
        NetworkInterface ni = multicastInterface;
        if (ni == null) {
            return null;
        }
        InetAddress any = null;
        for (InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
            if (channel.isIpv6() == (a instanceof java.net.Inet6Address)) {
                return a;
            }
            any = any == null ? a : any;
        }
        return any;
    }

    @Override
    public RingwireDatagramChannelConfig setInterface(InetAddress interfaceAddress) {
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(interfaceAddress);
            if (ni == null) {
                throw new IllegalArgumentException("no interface has the address " + interfaceAddress);
            }
            return setNetworkInterface(ni);
        } catch (java.net.SocketException e) {
            throw new io.netty.channel.ChannelException(e);
        }
    }

    @Override
    public NetworkInterface getNetworkInterface() {
        return multicastInterface;
    }

    /** IP_MULTICAST_IF by interface index (an ip_mreqn), and IPV6_MULTICAST_IF too on an IPv6 socket. */
    @Override
    public RingwireDatagramChannelConfig setNetworkInterface(NetworkInterface networkInterface) {
        int index = networkInterface.getIndex();
        try {
            if (channel.isIpv6()) {
                io.ringwire.uring.Sockets.setInt(fd(), IPPROTO_IPV6, IPV6_MULTICAST_IF, index);
            }
            java.nio.ByteBuffer m = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.nativeOrder());
            m.putInt(0).putInt(0).putInt(index);
            io.ringwire.uring.Sockets.setBytes(fd(), IPPROTO_IP, IP_MULTICAST_IF, m.array());
        } catch (io.ringwire.uring.NativeIoException e) {
            throw SocketOptions.failure(e);
        }
        multicastInterface = networkInterface;
        return this;
    }

    @Override
    @Deprecated
    public RingwireDatagramChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RingwireDatagramChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        channel.clearReadPending();
    }
}
