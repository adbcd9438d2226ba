package io.ringwire.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.unix.DomainDatagramChannelConfig;

import java.util.Map;

import static io.ringwire.uring.SocketConstants.SOL_SOCKET;
import static io.ringwire.uring.SocketConstants.SO_RCVBUF;
import static io.ringwire.uring.SocketConstants.SO_SNDBUF;

/**
 * Options of a {@link RingwireDomainDatagramChannel}; socket options go straight to the kernel. Receives are sized by
 * the {@link RecvByteBufAllocator} (2048 bytes by default, as Netty's datagram channels): a datagram that does not fit
 * is reported with a {@link DatagramTruncatedException}, never silently cut.
 */
public final class RingwireDomainDatagramChannelConfig extends DefaultChannelConfig
    implements DomainDatagramChannelConfig {
    private final RingwireDomainDatagramChannel channel;
    private volatile boolean activeOnOpen;

    RingwireDomainDatagramChannelConfig(RingwireDomainDatagramChannel channel) {
        super(channel, new FixedRecvByteBufAllocator(2048));
        this.channel = channel;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_RCVBUF, ChannelOption.SO_SNDBUF,
            ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION);
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
        if (option == ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION) {
            return (T) Boolean.valueOf(activeOnOpen);
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
        } else if (option == ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION) {
            setActiveOnOpen((Boolean) value);
        } else {
            return SocketOptions.setOther(this, channel, option, value, Map.of()) || super.setOption(option, value);
        }
        return true;
    }

    boolean isActiveOnOpen() {
        return activeOnOpen;
    }

    private void setActiveOnOpen(boolean activeOnOpen) {
        if (channel.isRegistered()) {
            throw new IllegalStateException("DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION can only be set before the "
                + "channel is registered");
        }
        this.activeOnOpen = activeOnOpen;
    }

    /** @return SO_RCVBUF */
    public int getReceiveBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF);
    }

    /**
     * @param size SO_RCVBUF
     * @return this
     */
    public RingwireDomainDatagramChannelConfig setReceiveBufferSize(int size) {
        SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, size);
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return SocketOptions.get(channel, SOL_SOCKET, SO_SNDBUF);
    }

    @Override
    public RingwireDomainDatagramChannelConfig setSendBufferSize(int size) {
        SocketOptions.set(channel, SOL_SOCKET, SO_SNDBUF, size);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RingwireDomainDatagramChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RingwireDomainDatagramChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }
}
