package io.ringwire.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannelConfig;
import io.netty.channel.unix.DomainSocketChannelConfig;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.util.internal.ObjectUtil;

import java.util.Map;

import static io.ringwire.uring.SocketConstants.SOL_SOCKET;
import static io.ringwire.uring.SocketConstants.SO_KEEPALIVE;
import static io.ringwire.uring.SocketConstants.SO_RCVBUF;
import static io.ringwire.uring.SocketConstants.SO_SNDBUF;

/**
 * Options of a {@link RingwireDomainSocketChannel}, among them {@link UnixChannelOption#DOMAIN_SOCKET_READ_MODE}:
 * bytes, or the file descriptors the peer passes.
 */
public final class RingwireDomainSocketChannelConfig extends DefaultChannelConfig
    implements DomainSocketChannelConfig, DuplexChannelConfig {
    private final RingwireDomainSocketChannel channel;
    private volatile boolean allowHalfClosure;
    private volatile DomainSocketReadMode readMode = DomainSocketReadMode.BYTES;

    RingwireDomainSocketChannelConfig(RingwireDomainSocketChannel channel) {
        super(channel);
        this.channel = channel;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_RCVBUF, ChannelOption.SO_SNDBUF,
            ChannelOption.SO_KEEPALIVE, ChannelOption.ALLOW_HALF_CLOSURE, UnixChannelOption.DOMAIN_SOCKET_READ_MODE);
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
        if (option == ChannelOption.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(isKeepAlive());
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(isAllowHalfClosure());
        }
        if (option == UnixChannelOption.DOMAIN_SOCKET_READ_MODE) {
            return (T) getReadMode();
        }
        Object other = SocketOptions.getOther(this, channel, option, Map.of());
        return other != null ? (T) other : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_SNDBUF) {
            setSendBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            setKeepAlive((Boolean) value);
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
        } else if (option == UnixChannelOption.DOMAIN_SOCKET_READ_MODE) {
            setReadMode((DomainSocketReadMode) value);
        } else {
            return SocketOptions.setOther(this, channel, option, value, Map.of()) || super.setOption(option, value);
        }
        return true;
    }

    /** @return SO_RCVBUF */
    public int getReceiveBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF);
    }

    /**
     * @param size SO_RCVBUF
     * @return this
     */
    public RingwireDomainSocketChannelConfig setReceiveBufferSize(int size) {
        SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, size);
        return this;
    }

    /** @return SO_SNDBUF */
    public int getSendBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_SNDBUF);
    }

    /**
     * @param size SO_SNDBUF
     * @return this
     */
    public RingwireDomainSocketChannelConfig setSendBufferSize(int size) {
        SocketOptions.set(channel, SOL_SOCKET, SO_SNDBUF, size);
        return this;
    }

    /**
     * @return SO_KEEPALIVE. Linux takes it on any socket and a Unix domain socket ignores it; accepted so that code
     *         written for TCP (gRPC sets it on every channel) runs unchanged over domain sockets
     */
    public boolean isKeepAlive() {
        return SocketOptions.getBoolean(channel, SOL_SOCKET, SO_KEEPALIVE);
    }

    /**
     * @param keepAlive SO_KEEPALIVE (see {@link #isKeepAlive()})
     * @return this
     */
    public RingwireDomainSocketChannelConfig setKeepAlive(boolean keepAlive) {
        SocketOptions.setBoolean(channel, SOL_SOCKET, SO_KEEPALIVE, keepAlive);
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RingwireDomainSocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    public DomainSocketReadMode getReadMode() {
        return readMode;
    }

    /**
     * Whether reads take bytes or the descriptors the peer passes. Changed while reading, a receive of the other
     * kind in flight is cancelled and the next one is of the new kind; bytes a receive already took still come as
     * bytes, as with Netty's native channels, which read in whichever mode is set when the socket is ready.
     */
    @Override
    public RingwireDomainSocketChannelConfig setReadMode(DomainSocketReadMode mode) {
        DomainSocketReadMode old = readMode;
        readMode = ObjectUtil.checkNotNull(mode, "mode");
        if (old != mode && channel.isRegistered()) {
            if (channel.eventLoop().inEventLoop()) {
                channel.readModeChanged();
            } else {
                channel.eventLoop().execute(channel::readModeChanged);
            }
        }
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        channel.clearReadPending();
    }

    @Override
    @Deprecated
    public RingwireDomainSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RingwireDomainSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }
}
