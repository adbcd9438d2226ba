package io.ringwire.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

import java.util.Map;

import static io.ringwire.uring.SocketConstants.*;

/** Options of a {@link RingwireSocketChannel}; socket options go straight to the kernel. */
public final class RingwireSocketChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {
    /** Socket options of one int that this config takes beside those its own methods name. */
    private static final Map<ChannelOption<?>, SocketOptions.IntSockopt> INTS = Map.of(
        RingwireChannelOption.TCP_CORK, new SocketOptions.IntSockopt(IPPROTO_TCP, TCP_CORK, Boolean.class),
        RingwireChannelOption.TCP_NOTSENT_LOWAT, new SocketOptions.IntSockopt(IPPROTO_TCP, TCP_NOTSENT_LOWAT,
            Long.class),
        RingwireChannelOption.IP_FREEBIND, SocketOptions.FREEBIND,
        RingwireChannelOption.IP_TRANSPARENT, SocketOptions.TRANSPARENT,
        RingwireChannelOption.IP_BIND_ADDRESS_NO_PORT, new SocketOptions.IntSockopt(IPPROTO_IP,
            IP_BIND_ADDRESS_NO_PORT, Boolean.class));

    private final RingwireSocketChannel channel;
    private volatile boolean allowHalfClosure;

    RingwireSocketChannelConfig(RingwireSocketChannel channel) {
        this(channel, false);
    }

    /**
     * @param noDelayAlready the socket has TCP_NODELAY already: an accepted direct descriptor inherits it from the
     *                       listener, which sets it for them (one URING_CMD less per connection)
     */
    RingwireSocketChannelConfig(RingwireSocketChannel channel, boolean noDelayAlready) {
        super(channel);
        this.channel = channel;
        if (!noDelayAlready) {
            setTcpNoDelay(true); // Netty's default for every TCP transport
        }
    }

    private int fd() {
        return channel.fd;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(getOptions(super.getOptions(), ChannelOption.SO_RCVBUF, ChannelOption.SO_SNDBUF,
            ChannelOption.TCP_NODELAY, ChannelOption.SO_KEEPALIVE, ChannelOption.SO_REUSEADDR,
            ChannelOption.SO_LINGER, ChannelOption.IP_TOS, ChannelOption.ALLOW_HALF_CLOSURE,
            RingwireChannelOption.SO_REUSEPORT, RingwireChannelOption.TCP_QUICKACK, ChannelOption.TCP_FASTOPEN_CONNECT,
            RingwireChannelOption.TCP_USER_TIMEOUT, RingwireChannelOption.TCP_KEEPIDLE,
            RingwireChannelOption.TCP_KEEPINTVL, RingwireChannelOption.TCP_KEEPCNT,
            RingwireChannelOption.SEND_ZC_THRESHOLD), INTS.keySet().toArray(new ChannelOption<?>[0]));
    }

    /** Default of {@link RingwireChannelOption#SEND_ZC_THRESHOLD}: 0, off. */
    static final int DEFAULT_SEND_ZC_THRESHOLD = Integer.getInteger("ringwire.sendZcThreshold", 0);
    private volatile int sendZcThreshold = DEFAULT_SEND_ZC_THRESHOLD;

    /** @return bytes from which a write goes as a zero-copy send; 0: never */
    public int getSendZcThreshold() {
        return sendZcThreshold;
    }

    /**
     * @param bytes bytes from which a write goes as a zero-copy send; 0: never
     * @return this
     */
    public RingwireSocketChannelConfig setSendZcThreshold(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("SEND_ZC_THRESHOLD is bytes, 0 or more (0: never): " + bytes);
        }
        sendZcThreshold = bytes;
        return this;
    }

    /** The peers this socket has TCP_MD5SIG keys for (null: none); in the object's alignment gap, so free. */
    private volatile java.util.List<java.net.InetAddress> tcpMd5Peers;

    /**
     * Sets the connection's TCP MD5 signature keys, replacing those it had ({@link RingwireChannelOption#TCP_MD5SIG});
     * before connect.
     *
     * @param keys per peer address, a key of 1 to 80 bytes; empty removes every key
     * @return this
     */
    public synchronized RingwireSocketChannelConfig setTcpMd5Sig(java.util.Map<java.net.InetAddress, byte[]> keys) {
        tcpMd5Peers = TcpMd5Keys.replace(channel, channel.isIpv6(), tcpMd5Peers, keys);
        return this;
    }

    /** An accepted connection has its listener's keys (the kernel copies them), so a later set can remove them. */
    void inheritTcpMd5Peers(java.util.List<java.net.InetAddress> listeners) {
        tcpMd5Peers = listeners;
    }

    /** @return the TCP-level int option behind one of Ringwire's int options, or -1 */
    private static int tcpIntOption(ChannelOption<?> option) {
        if (option == RingwireChannelOption.TCP_USER_TIMEOUT) {
            return TCP_USER_TIMEOUT;
        }
        if (option == RingwireChannelOption.TCP_KEEPIDLE) {
            return TCP_KEEPIDLE;
        }
        if (option == RingwireChannelOption.TCP_KEEPINTVL) {
            return TCP_KEEPINTVL;
        }
        if (option == RingwireChannelOption.TCP_KEEPCNT) {
            return TCP_KEEPCNT;
        }
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(getReceiveBufferSize());
        }
        if (option == ChannelOption.SO_SNDBUF) {
            return (T) Integer.valueOf(getSendBufferSize());
        }
        if (option == ChannelOption.TCP_NODELAY) {
            return (T) Boolean.valueOf(isTcpNoDelay());
        }
        if (option == ChannelOption.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(isKeepAlive());
        }
        if (option == ChannelOption.SO_REUSEADDR) {
            return (T) Boolean.valueOf(isReuseAddress());
        }
        if (option == ChannelOption.SO_LINGER) {
            return (T) Integer.valueOf(getSoLinger());
        }
        if (option == ChannelOption.IP_TOS) {
            return (T) Integer.valueOf(getTrafficClass());
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(isAllowHalfClosure());
        }
        if (option == RingwireChannelOption.SO_REUSEPORT) {
            return (T) Boolean.valueOf(SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEPORT));
        }
        if (option == ChannelOption.TCP_FASTOPEN_CONNECT) {
            return (T) Boolean.valueOf(SocketOptions.getBoolean(channel, IPPROTO_TCP, TCP_FASTOPEN_CONNECT));
        }
        if (option == RingwireChannelOption.TCP_QUICKACK) {
            return (T) Boolean.valueOf(SocketOptions.getBoolean(channel, IPPROTO_TCP, TCP_QUICKACK));
        }
        if (option == RingwireChannelOption.SEND_ZC_THRESHOLD) {
            return (T) Integer.valueOf(getSendZcThreshold());
        }
        int tcp = tcpIntOption(option);
        if (tcp >= 0) {
            return (T) Integer.valueOf(SocketOptions.get(channel, IPPROTO_TCP, tcp));
        }
        Object other = SocketOptions.getOther(this, channel, option, INTS);
        return other != null ? (T) other : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_SNDBUF) {
            setSendBufferSize((Integer) value);
        } else if (option == ChannelOption.TCP_NODELAY) {
            setTcpNoDelay((Boolean) value);
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            setKeepAlive((Boolean) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == ChannelOption.SO_LINGER) {
            setSoLinger((Integer) value);
        } else if (option == ChannelOption.IP_TOS) {
            setTrafficClass((Integer) value);
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
        } else if (option == RingwireChannelOption.SO_REUSEPORT) {
            SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEPORT, (Boolean) value);
        } else if (option == ChannelOption.TCP_FASTOPEN_CONNECT) {
            // connect returns at once and the first write leaves in the SYN (with a cookie from an earlier
            // connection), as with Netty's epoll transport; set it before connect
            SocketOptions.setBoolean(channel, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, (Boolean) value);
        } else if (option == RingwireChannelOption.TCP_QUICKACK) {
            SocketOptions.setBoolean(channel, IPPROTO_TCP, TCP_QUICKACK, (Boolean) value);
        } else if (option == RingwireChannelOption.SEND_ZC_THRESHOLD) {
            setSendZcThreshold((Integer) value);
        } else if (option == RingwireChannelOption.TCP_MD5SIG) {
            @SuppressWarnings("unchecked")
            java.util.Map<java.net.InetAddress, byte[]> keys = (java.util.Map<java.net.InetAddress, byte[]>) value;
            setTcpMd5Sig(keys);
        } else if (tcpIntOption(option) >= 0) {
            SocketOptions.set(channel, IPPROTO_TCP, tcpIntOption(option), (Integer) value);
        } else {
            return SocketOptions.setOther(this, channel, option, value, INTS) || super.setOption(option, value);
        }
        return true;
    }

    @Override
    public boolean isTcpNoDelay() {
        return SocketOptions.getBoolean(channel, IPPROTO_TCP, TCP_NODELAY);
    }

    @Override
    public RingwireSocketChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        SocketOptions.setBoolean(channel, IPPROTO_TCP, TCP_NODELAY, tcpNoDelay);
        return this;
    }

    @Override
    public int getSoLinger() {
        try {
            if (channel.isDirectDescriptor()) {
                // struct linger { int l_onoff; int l_linger; }
                java.nio.ByteBuffer l = java.nio.ByteBuffer.wrap(channel.getBytesOption(SOL_SOCKET, SO_LINGER, 8))
                    .order(java.nio.ByteOrder.nativeOrder());
                return l.getInt(0) == 0 ? -1 : l.getInt(4);
            }
            return Sockets.getLinger(fd());
        } catch (NativeIoException e) {
            throw SocketOptions.failure(e);
        }
    }

    @Override
    public RingwireSocketChannelConfig setSoLinger(int soLinger) {
        try {
            if (channel.isDirectDescriptor()) {
                channel.setBytesOption(SOL_SOCKET, SO_LINGER, java.nio.ByteBuffer.allocate(8)
                    .order(java.nio.ByteOrder.nativeOrder()).putInt(soLinger >= 0 ? 1 : 0)
                    .putInt(Math.max(soLinger, 0)).array());
            } else {
                Sockets.setLinger(fd(), soLinger >= 0, Math.max(soLinger, 0));
            }
        } catch (NativeIoException e) {
            throw SocketOptions.failure(e);
        }
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_SNDBUF);
    }

    @Override
    public RingwireSocketChannelConfig setSendBufferSize(int sendBufferSize) {
        SocketOptions.set(channel, SOL_SOCKET, SO_SNDBUF, sendBufferSize);
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF);
    }

    @Override
    public RingwireSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, receiveBufferSize);
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_KEEPALIVE);
    }

    @Override
    public RingwireSocketChannelConfig setKeepAlive(boolean keepAlive) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_KEEPALIVE, keepAlive);
        return this;
    }

    @Override
    public int getTrafficClass() {
        return SocketOptions.trafficClass(channel, channel.isIpv6());
    }

    @Override
    public RingwireSocketChannelConfig setTrafficClass(int trafficClass) {
        SocketOptions.setTrafficClass(channel, channel.isIpv6(), trafficClass);
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_REUSEADDR);
    }

    @Override
    public RingwireSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_REUSEADDR, reuseAddress);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RingwireSocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RingwireSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RingwireSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        channel.clearReadPending();
    }
}
