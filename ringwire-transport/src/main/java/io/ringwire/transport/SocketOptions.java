package io.ringwire.transport;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Map;

import static io.ringwire.uring.SocketConstants.IPPROTO_IP;
import static io.ringwire.uring.SocketConstants.IPPROTO_IPV6;
import static io.ringwire.uring.SocketConstants.IPV6_TCLASS;
import static io.ringwire.uring.SocketConstants.IP_TOS;

/**
 * Socket options with Netty's exception convention ({@link ChannelException} on failure), on a channel's socket: its
 * fd, or for a connection on a direct descriptor the calls its loop makes on the slot.
 */
final class SocketOptions {
    private SocketOptions() { }


    /**
     * @return Netty's exception for a socket option the kernel refused: on a closed channel (EBADF: its fd is gone)
     *         a {@link ChannelException} caused by a {@link ClosedChannelException}, as Netty's native channels
     *         throw it; otherwise one caused by the refusal, which names the errno
     */
    static ChannelException failure(NativeIoException e) {
        if (e.errno() == Errno.EBADF) {
            ClosedChannelException closed = new ClosedChannelException();
            closed.addSuppressed(e);
            return new ChannelException(closed);
        }
        return new ChannelException(e);
    }

    static int get(AbstractRingwireChannel channel, int level, int name) {
        try {
            return channel.getIntOption(level, name);
        } catch (NativeIoException e) {
            throw failure(e);
        }
    }

    static void set(AbstractRingwireChannel channel, int level, int name, int value) {
        try {
            channel.setIntOption(level, name, value);
        } catch (NativeIoException e) {
            throw failure(e);
        }
    }

    static boolean getBoolean(AbstractRingwireChannel channel, int level, int name) {
        return get(channel, level, name) != 0;
    }

    static void setBoolean(AbstractRingwireChannel channel, int level, int name, boolean value) {
        set(channel, level, name, value ? 1 : 0);
    }

    /**
     * Sets any socket option by its numbers, as Netty's epoll and io_uring channels take them:
     * {@link IntegerUnixChannelOption} (an int) and {@link RawUnixChannelOption} (the bytes between the buffer's
     * position and limit; the buffer itself is not moved).
     *
     * @return whether {@code option} was one of those two (and is now set); false for any other option
     * @throws ChannelException naming the errno if the kernel refuses it
     */
    static boolean setUnixOption(AbstractRingwireChannel channel, ChannelOption<?> option, Object value) {
        if (option instanceof IntegerUnixChannelOption o) {
            set(channel, o.level(), o.optname(), (Integer) value);
            return true;
        }
        if (option instanceof RawUnixChannelOption o) {
            ByteBuffer b = ((ByteBuffer) value).duplicate();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            try {
                channel.setBytesOption(o.level(), o.optname(), bytes);
            } catch (NativeIoException e) {
                throw failure(e);
            }
            return true;
        }
        return false;
    }

    /**
     * Reads an option set by {@link #setUnixOption}: an {@code Integer}, or for a {@link RawUnixChannelOption} a
     * heap buffer of its {@code length()} holding what the kernel wrote (zeros after, if it wrote fewer bytes), as
     * Netty's epoll channels return it.
     *
     * @return the value, or null if {@code option} is neither of those two
     * @throws ChannelException naming the errno if the kernel refuses it
     */
    static Object getUnixOption(AbstractRingwireChannel channel, ChannelOption<?> option) {
        if (option instanceof IntegerUnixChannelOption o) {
            return get(channel, o.level(), o.optname());
        }
        if (option instanceof RawUnixChannelOption o) {
            try {
                return ByteBuffer.allocate(o.length()).put(channel.getBytesOption(o.level(), o.optname(), o.length()))
                    .clear();
            } catch (NativeIoException e) {
                throw failure(e);
            }
        }
        return null;
    }

    /**
     * A channel option that is one int socket option at ({@code level}, {@code optname}), read and written as the
     * option's {@code type}: Boolean (0 or 1), Integer, or Long (an unsigned 32-bit value).
     */
    record IntSockopt(int level, int optname, Class<?> type) {
        Object get(AbstractRingwireChannel channel) {
            int v = SocketOptions.get(channel, level, optname);
            if (type == Boolean.class) {
                return v != 0;
            }
            return type == Long.class ? (Object) (v & 0xFFFF_FFFFL) : (Object) v;
        }

        void set(AbstractRingwireChannel channel, Object value) {
            int v;
            if (value instanceof Boolean b) {
                v = b ? 1 : 0;
            } else if (value instanceof Long l) {
                if (l < 0 || l > 0xFFFF_FFFFL) {
                    throw new IllegalArgumentException("an unsigned 32-bit value, 0 to 4294967295: " + l);
                }
                v = (int) (long) l;
            } else {
                v = (Integer) value;
            }
            SocketOptions.set(channel, level, optname, v);
        }
    }

    /**
     * Reads an option a config does not name itself: one of its {@code ints}, one of Netty's options by numbers
     * ({@link #getUnixOption}), or one of Netty's epoll or io_uring options that has a Ringwire twin
     * ({@link #equivalent}), read as that twin through {@code config}.
     *
     * @return the value, or null if {@code option} is none of those
     */
    static Object getOther(ChannelConfig config, AbstractRingwireChannel channel, ChannelOption<?> option,
                           Map<ChannelOption<?>, IntSockopt> ints) {
        IntSockopt o = ints.get(option);
        if (o != null) {
            return o.get(channel);
        }
        Object unix = getUnixOption(channel, option);
        if (unix != null) {
            return unix;
        }
        ChannelOption<?> twin = equivalent(option);
        return twin == null ? null : config.getOption(twin);
    }

    /**
     * Sets an option a config does not name itself, as {@link #getOther} reads it.
     *
     * @return whether {@code option} was one of those, and is now set
     */
    @SuppressWarnings("unchecked")
    static boolean setOther(ChannelConfig config, AbstractRingwireChannel channel, ChannelOption<?> option, Object value,
                            Map<ChannelOption<?>, IntSockopt> ints) {
        IntSockopt o = ints.get(option);
        if (o != null) {
            o.set(channel, value);
            return true;
        }
        if (setUnixOption(channel, option, value)) {
            return true;
        }
        ChannelOption<Object> twin = (ChannelOption<Object>) equivalent(option);
        if (twin != null) {
            return config.setOption(twin, value);
        }
        return ignoredNettyOption(option);
    }

    static final IntSockopt FREEBIND = new IntSockopt(IPPROTO_IP, SocketConstants.IP_FREEBIND, Boolean.class);
    static final IntSockopt TRANSPARENT = new IntSockopt(IPPROTO_IP, SocketConstants.IP_TRANSPARENT, Boolean.class);

    /** Ringwire's options that have a twin of the same name and value type among Netty's epoll and io_uring ones. */
    private static final Map<String, ChannelOption<?>> TWINS = Map.ofEntries(
        Map.entry("SO_REUSEPORT", RingwireChannelOption.SO_REUSEPORT),
        Map.entry("TCP_QUICKACK", RingwireChannelOption.TCP_QUICKACK),
        Map.entry("TCP_USER_TIMEOUT", RingwireChannelOption.TCP_USER_TIMEOUT),
        Map.entry("TCP_KEEPIDLE", RingwireChannelOption.TCP_KEEPIDLE),
        Map.entry("TCP_KEEPINTVL", RingwireChannelOption.TCP_KEEPINTVL),
        Map.entry("TCP_KEEPCNT", RingwireChannelOption.TCP_KEEPCNT),
        Map.entry("TCP_CORK", RingwireChannelOption.TCP_CORK),
        Map.entry("TCP_NOTSENT_LOWAT", RingwireChannelOption.TCP_NOTSENT_LOWAT),
        Map.entry("TCP_DEFER_ACCEPT", RingwireChannelOption.TCP_DEFER_ACCEPT));

    /** The classes that declare Netty's native transports' options (Epoll's inherits SO_REUSEPORT from Unix's). */
    private static final java.util.Set<String> NETTY_OPTION_CLASSES = java.util.Set.of(
        "io.netty.channel.epoll.EpollChannelOption", "io.netty.channel.uring.IoUringChannelOption",
        "io.netty.channel.unix.UnixChannelOption");

    /**
     * Netty's epoll and io_uring transports declare most of their options in their own classes
     * ({@code EpollChannelOption.TCP_KEEPIDLE} is named {@code io.netty.channel.epoll.EpollChannelOption#TCP_KEEPIDLE}
     * in Netty's pool), so they are not Ringwire's constants; bootstrap code written for those transports keeps its
     * options on Ringwire through this. (The options Netty names without a class, such as {@code IP_FREEBIND}, are
     * Ringwire's own constants already.)
     *
     * @return Ringwire's option of the same name and value type, or null
     */
    static ChannelOption<?> equivalent(ChannelOption<?> option) {
        String name = option.name();
        int hash = name.indexOf('#');
        if (hash < 0 || !NETTY_OPTION_CLASSES.contains(name.substring(0, hash))) {
            return null;
        }
        return TWINS.get(name.substring(hash + 1));
    }

    /**
     * What to use on Ringwire instead of the options of Netty's io_uring transport that have no twin here, by the
     * option's name: what Netty's bootstrap would otherwise log is only "Unknown channel option", which says nothing
     * of where to go.
     */
    private static final Map<String, String> NETTY_IO_URING_ONLY = Map.of(
        "io.netty.channel.uring.IoUringChannelOption#IO_URING_BUFFER_GROUP_ID",
        "Netty io_uring's IoUringChannelOption.IO_URING_BUFFER_GROUP_ID is ignored on Ringwire's channels: each "
            + "Ringwire event loop receives into one shared buffer ring of its own, sized with "
            + "RingwireIoHandlerConfig.builder().bufferRingEntries(n) and bufferSize(bytes) (or -Dringwire.bufferRingEntries "
            + "and -Dringwire.bufferSize), so there is no group to choose. Said once.",
        "io.netty.channel.uring.IoUringChannelOption#IO_URING_WRITE_ZERO_COPY_THRESHOLD",
        "Netty io_uring's IoUringChannelOption.IO_URING_WRITE_ZERO_COPY_THRESHOLD is ignored on Ringwire's channels: "
            + "use RingwireChannelOption.SEND_ZC_THRESHOLD (bytes; 0, the default, is off, where Netty's -1 is) on "
            + "TCP connections, or -Dringwire.sendZcThreshold for all of them. Said once.");
    /** The names of {@link #NETTY_IO_URING_ONLY}'s options already warned about in this JVM. */
    private static final java.util.Set<String> WARNED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Takes an option of Netty's io_uring transport that Ringwire has no twin for, and ignores it with one warning per
     * option and JVM (child options are set on every accepted connection) that says what to use instead.
     *
     * @return whether {@code option} was one of those
     */
    private static boolean ignoredNettyOption(ChannelOption<?> option) {
        String advice = NETTY_IO_URING_ONLY.get(option.name());
        if (advice == null) {
            return false;
        }
        if (WARNED.add(option.name())) {
            // made when needed, once per option: a warning this rare needs no logger of its own for the class's life
            io.netty.util.internal.logging.InternalLoggerFactory.getInstance(SocketOptions.class).warn(advice);
        }
        return true;
    }

    /** @return IPV6_TCLASS on an IPv6 socket, IP_TOS on an IPv4 one */
    static int trafficClass(AbstractRingwireChannel channel, boolean ipv6) {
        return ipv6 ? get(channel, IPPROTO_IPV6, IPV6_TCLASS) : get(channel, IPPROTO_IP, IP_TOS);
    }

    /** Sets IP_TOS, and IPV6_TCLASS too on an IPv6 socket (whose IPv4-mapped traffic uses the former). */
    static void setTrafficClass(AbstractRingwireChannel channel, boolean ipv6, int trafficClass) {
        if (ipv6) {
            set(channel, IPPROTO_IPV6, IPV6_TCLASS, trafficClass);
        }
        set(channel, IPPROTO_IP, IP_TOS, trafficClass);
    }
}
