package io.ringwire.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.util.NetUtil;

import java.util.Map;

import static io.ringwire.uring.SocketConstants.SOL_SOCKET;
import static io.ringwire.uring.SocketConstants.SO_RCVBUF;

/** Options of a {@link RingwireServerDomainSocketChannel}: the accept backlog and SO_RCVBUF. */
public final class RingwireServerDomainSocketChannelConfig extends DefaultChannelConfig {
    private final RingwireServerDomainSocketChannel channel;
    private volatile int backlog = NetUtil.SOMAXCONN;

    RingwireServerDomainSocketChannelConfig(RingwireServerDomainSocketChannel channel) {
        super(channel);
        this.channel = channel;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_RCVBUF, ChannelOption.SO_BACKLOG);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(SocketOptions.get(channel, SOL_SOCKET, SO_RCVBUF));
        }
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(getBacklog());
        }
        Object other = SocketOptions.getOther(this, channel, option, Map.of());
        return other != null ? (T) other : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_RCVBUF) {
            SocketOptions.set(channel, SOL_SOCKET, SO_RCVBUF, (Integer) value);
        } else if (option == ChannelOption.SO_BACKLOG) {
            setBacklog((Integer) value);
        } else {
            return SocketOptions.setOther(this, channel, option, value, Map.of()) || super.setOption(option, value);
        }
        return true;
    }

    /** @return the accept queue length bind() listens with */
    public int getBacklog() {
        return backlog;
    }

    /**
     * @param backlog the accept queue length (takes effect at bind)
     * @return this
     */
    public RingwireServerDomainSocketChannelConfig setBacklog(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog: " + backlog + " (expected: >= 0)");
        }
        this.backlog = backlog;
        return this;
    }

    @Override
    protected void autoReadCleared() {
        channel.clearReadPending();
    }
}
