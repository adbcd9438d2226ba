package io.ringwire.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ServerSocketChannelConfig;
import io.netty.util.NetUtil;

import java.util.Map;

import static io.ringwire.uring.SocketConstants.*;

/** Options of a {@link RingwireServerSocketChannel}; socket options go straight to the kernel. */
public final class RingwireServerSocketChannelConfig extends DefaultChannelConfig implements ServerSocketChannelConfig {
    /** Socket options of one int that this config takes beside those its own methods name. */
    private static final Map<ChannelOption<?>, SocketOptions.IntSockopt> INTS = Map.of(
        RingwireChannelOption.TCP_DEFER_ACCEPT, new SocketOptions.IntSockopt(IPPROTO_TCP, TCP_DEFER_ACCEPT,
            Integer.class),
        RingwireChannelOption.IP_FREEBIND, SocketOptions.FREEBIND,
        RingwireChannelOption.IP_TRANSPARENT, SocketOptions.TRANSPARENT);

    private final RingwireServerSocketChannel channel;
    private volatile int backlog = NetUtil.SOMAXCONN;

    RingwireServerSocketChannelConfig(RingwireServerSocketChannel channel) {
        super(channel);
        this.channel = channel;
        setReuseAddress(true); // as Netty's epoll and io_uring transports do
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(getOptions(super.getOptions(), ChannelOption.SO_RCVBUF, ChannelOption.SO_REUSEADDR,
            ChannelOption.SO_BACKLOG, RingwireChannelOption.SO_REUSEPORT, ChannelOption.TCP_FASTOPEN),
            INTS.keySet().toArray(new ChannelOption<?>[0]));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(getReceiveBufferSize());
        }
        if (option == ChannelOption.SO_REUSEADDR) {
            return (T) Boolean.valueOf(isReuseAddress());
        }
        if (option == ChannelOption.TCP_FASTOPEN) {
            return (T) Integer.valueOf(SocketOptions.get(channel, IPPROTO_TCP, TCP_FASTOPEN));
        }
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(getBacklog());
        }
        if (option == RingwireChannelOption.SO_REUSEPORT) {
            return (T) Boolean.valueOf(SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEPORT));
        }
        Object other = SocketOptions.getOther(this, channel, option, INTS);
        return other != null ? (T) other : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == ChannelOption.TCP_FASTOPEN) {
            // TCP Fast Open's pending-request queue (0: off); takes effect at listen, so set it before bind
            SocketOptions.set(channel, IPPROTO_TCP, TCP_FASTOPEN, (Integer) value);
        } else if (option == ChannelOption.SO_BACKLOG) {
            setBacklog((Integer) value);
        } else if (option == RingwireChannelOption.SO_REUSEPORT) {
            SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEPORT, (Boolean) value);
        } else if (option == RingwireChannelOption.TCP_MD5SIG) {
            @SuppressWarnings("unchecked")
            java.util.Map<java.net.InetAddress, byte[]> keys = (java.util.Map<java.net.InetAddress, byte[]>) value;
            setTcpMd5Sig(keys);
        } else {
            return SocketOptions.setOther(this, channel, option, value, INTS) || super.setOption(option, value);
        }
        return true;
    }

    private volatile java.util.List<java.net.InetAddress> tcpMd5Peers;

    /**
     * Sets the listener's TCP MD5 signature keys, replacing those it had ({@link RingwireChannelOption#TCP_MD5SIG}):
     * a peer with a key connects only when it signs with that key; the connections accepted keep the keys.
     *
     * @param keys per peer address, a key of 1 to 80 bytes; empty removes every key
     * @return this
     */
    public synchronized RingwireServerSocketChannelConfig setTcpMd5Sig(
        java.util.Map<java.net.InetAddress, byte[]> keys) {
        try {
            tcpMd5Peers = TcpMd5Keys.replace(channel, io.ringwire.uring.Sockets.isIpv6(channel.fd), tcpMd5Peers, keys);
        } catch (io.ringwire.uring.NativeIoException e) {
            throw SocketOptions.failure(e);
        }
        return this;
    }

    /** @return the peers the listener has keys for, which its accepted connections inherit; null: none */
    java.util.List<java.net.InetAddress> tcpMd5Peers() {
        return tcpMd5Peers;
    }

    @Override
    public int getBacklog() {
        return backlog;
    }

    @Override
    public RingwireServerSocketChannelConfig setBacklog(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative: backlog=" + backlog);
        }
        this.backlog = backlog;
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEADDR);
    }

    @Override
    public RingwireServerSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEADDR, reuseAddress);
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF);
    }

    @Override
    public RingwireServerSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, receiveBufferSize);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setPerformancePreferences(int connectionTime, int latency,
                                                                        int bandwidth) {
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RingwireServerSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    @Deprecated
    public RingwireServerSocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public RingwireServerSocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RingwireServerSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        channel.clearReadPending();
    }
}
