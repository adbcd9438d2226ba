package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultAddressedEnvelope;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.SocketAddress;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A UDP socket on io_uring: receives by multishot RECVMSG from the loop's buffer ring, sends one SENDMSG per
 * datagram, batched into the loop's enter (see {@link AbstractRingwireDatagramChannel}). An ICMP port-unreachable on a
 * connected channel arrives as {@link PortUnreachableException}; the channel stays open.
 *
 * <p>Multicast: joining and leaving a group on an interface, for any source or for one source (source-specific,
 * MCAST_JOIN_SOURCE_GROUP), and blocking a source of a group joined for any source (MCAST_BLOCK_SOURCE; Netty's epoll
 * transport has no blocking, its NIO transport has).
 */
public final class RingwireDatagramChannel extends AbstractRingwireDatagramChannel<InetSocketAddress>
    implements DatagramChannel {
    private final RingwireDatagramChannelConfig config;
    private final boolean ipv6;
    private final Senders senders = new Senders();

    /** A dual-stack socket when the host has IPv6, otherwise IPv4. */
    public RingwireDatagramChannel() {
        this(defaultFamily());
    }

    /**
     * @param family the address family to open the socket in
     */
    public RingwireDatagramChannel(InternetProtocolFamily family) {
        // room for a sockaddr_in6 in each ring buffer
        super(openSocket(inetFamily(family), SocketConstants.SOCK_DGRAM), SockAddr.IN6_SIZE);
        this.ipv6 = family == InternetProtocolFamily.IPv6;
        this.config = new RingwireDatagramChannelConfig(this);
    }

    /**
     * @param family {@code INET} or {@code INET6} (Netty 4.2's name for the address family)
     */
    public RingwireDatagramChannel(io.netty.channel.socket.SocketProtocolFamily family) {
        this(switch (family) {
            case INET -> InternetProtocolFamily.IPv4;
            case INET6 -> InternetProtocolFamily.IPv6;
            default -> throw new IllegalArgumentException("a UDP socket is INET or INET6, not " + family);
        });
    }

    boolean isIpv6() {
        return ipv6;
    }

    @Override
    public RingwireDatagramChannelConfig config() {
        return config;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    boolean activeOnOpen() {
        return config.isActiveOnOpen();
    }

    @Override
    InetSocketAddress sender(MemorySegment seg, long at, int length) {
        return senders.read(seg, at, length);
    }

    @Override
    int writeRecipient(SocketAddress recipient, MemorySegment dst) {
        return SockAddr.write(recipient, dst, ipv6);
    }

    @Override
    Object packet(ByteBuf content, InetSocketAddress sender, InetSocketAddress recipient) {
        return new DatagramPacket(content, recipient != null ? recipient : localAddress(), sender);
    }

    @Override
    boolean receivesWithControl() {
        return config.isUdpGro() || config.isRecvOrigDstAddr();
    }

    @Override
    int maxDatagramPayloadSize() {
        return config.getMaxDatagramPayloadSize();
    }

    @Override
    int segmentSize(Object msg) {
        return msg instanceof SegmentedDatagramPacket p ? p.segmentSize() : 0;
    }

    /**
     * @return whether {@link SegmentedDatagramPacket} (UDP GSO: one write, several datagrams cut by the kernel) is
     *         supported: always, on the kernels Ringwire runs on (UDP_SEGMENT is Linux 4.18, Ringwire needs 6.0).
     *         Netty's epoll and io_uring datagram channels have the same method.
     */
    public static boolean isSegmentedDatagramPacketSupported() {
        return true;
    }

    @Override
    boolean isRecipient(SocketAddress recipient) {
        return recipient instanceof InetSocketAddress;
    }

    @Override
    void checkRecipient(SocketAddress recipient) {
        if (recipient instanceof InetSocketAddress a && a.isUnresolved()) {
            throw new java.nio.channels.UnresolvedAddressException(); // as NIO and Netty's native transports say
        }
    }

    @Override
    AddressedEnvelope<ByteBuf, ? extends SocketAddress> envelope(AddressedEnvelope<?, ?> e, ByteBuf direct) {
        if (e instanceof DatagramPacket p) {
            return p.replace(direct); // a SegmentedDatagramPacket stays one, with its segment size
        }
        return new DefaultAddressedEnvelope<>(direct, (InetSocketAddress) e.recipient(),
            (InetSocketAddress) e.sender());
    }

    @Override
    String messageTypes() {
        return "DatagramPacket, AddressedEnvelope<ByteBuf, InetSocketAddress>";
    }

    /**
     * The senders of recent datagrams, so that a peer that keeps sending (request and response) costs no new
     * InetSocketAddress per datagram: IPv4 and IPv4-mapped addresses, direct-mapped by address and port into 256
     * slots (a collision replaces the slot). Other addresses are decoded each time.
     */
    private static final class Senders {
        private static final java.lang.foreign.ValueLayout.OfInt INT_BE =
            JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        private static final java.lang.foreign.ValueLayout.OfShort SHORT_BE =
            java.lang.foreign.ValueLayout.JAVA_SHORT.withOrder(java.nio.ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        private final long[] keys = new long[256];
        private final InetSocketAddress[] values = new InetSocketAddress[256];

        /** @return the sockaddr of {@code length} bytes at {@code at} in {@code seg}, as an InetSocketAddress */
        InetSocketAddress read(MemorySegment seg, long at, int length) {
            int family = Short.toUnsignedInt(seg.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at));
            long ip;
            if (family == SocketConstants.AF_INET && length >= SockAddr.IN_SIZE) {
                ip = Integer.toUnsignedLong(seg.get(INT_BE, at + 4));
            } else if (family == SocketConstants.AF_INET6 && length >= SockAddr.IN6_SIZE
                && seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + 8) == 0
                && seg.get(INT_BE, at + 16) == 0x0000ffff) {
                ip = Integer.toUnsignedLong(seg.get(INT_BE, at + 20)); // ::ffff:a.b.c.d
            } else {
                return (InetSocketAddress) SockAddr.read(seg.asSlice(at, length), length);
            }
            int port = Short.toUnsignedInt(seg.get(SHORT_BE, at + 2));
            long key = ip << 16 | port | 1L << 48; // (bit 48: never the empty slot's 0)
            int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 56);
            if (keys[slot] == key) {
                return values[slot];
            }
            InetSocketAddress a = (InetSocketAddress) SockAddr.read(seg.asSlice(at, length), length);
            keys[slot] = key;
            values[slot] = a;
            return a;
        }
    }


    // ------------------------------------------------------------------------------------------ multicast

    /**
     * Joins or leaves a multicast group on an interface: for any source, IP_ADD/DROP_MEMBERSHIP with an ip_mreqn or
     * IPV6_ADD/DROP_MEMBERSHIP with an ipv6_mreq; for one source, MCAST_JOIN/LEAVE_SOURCE_GROUP.
     *
     * @param iface  the interface, or null for the channel's multicast interface (or the kernel's choice)
     * @param source the one source to receive from, or null for any
     */
    private ChannelFuture membership(boolean join, InetAddress group, NetworkInterface iface, InetAddress source,
                                     ChannelPromise promise) {
        try {
            int index = interfaceFor(group, iface);
            byte[] g = group.getAddress();
            if (source != null) {
                Sockets.setGroupSource(fd, join ? SocketConstants.MCAST_JOIN_SOURCE_GROUP
                    : SocketConstants.MCAST_LEAVE_SOURCE_GROUP, group, index, source);
            } else if (g.length == 4) {
                // struct ip_mreqn { struct in_addr imr_multiaddr, imr_address; int imr_ifindex; }
                java.nio.ByteBuffer m = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.nativeOrder());
                m.put(g).putInt(0).putInt(index);
                Sockets.setBytes(fd, SocketConstants.IPPROTO_IP,
                    join ? SocketConstants.IP_ADD_MEMBERSHIP : SocketConstants.IP_DROP_MEMBERSHIP, m.array());
            } else {
                // struct ipv6_mreq { struct in6_addr ipv6mr_multiaddr; unsigned int ipv6mr_interface; }
                java.nio.ByteBuffer m = java.nio.ByteBuffer.allocate(20).order(java.nio.ByteOrder.nativeOrder());
                m.put(g).putInt(index);
                Sockets.setBytes(fd, SocketConstants.IPPROTO_IPV6,
                    join ? SocketConstants.IPV6_ADD_MEMBERSHIP : SocketConstants.IPV6_DROP_MEMBERSHIP, m.array());
            }
            promise.setSuccess();
        } catch (Exception e) {
            promise.setFailure(e);
        }
        return promise;
    }

    /** Blocks one source of a group this channel joined for any source on that interface (MCAST_BLOCK_SOURCE). */
    private ChannelFuture blockSource(InetAddress group, NetworkInterface iface, InetAddress source,
                                      ChannelPromise promise) {
        try {
            if (source == null) {
                throw new NullPointerException("sourceToBlock");
            }
            Sockets.setGroupSource(fd, SocketConstants.MCAST_BLOCK_SOURCE, group, interfaceFor(group, iface), source);
            promise.setSuccess();
        } catch (NativeIoException e) {
            promise.setFailure(e.errno() != Errno.EINVAL ? e : new NativeIoException(e.operation()
                + " (a source can only be blocked in a group the channel joined for any source, on that interface)",
                e.errno()));
        } catch (Exception e) {
            promise.setFailure(e);
        }
        return promise;
    }

    /**
     * Checks a group against this socket: @return the index of {@code iface}, or else of the channel's multicast
     * interface, or 0 (the kernel's choice by the group's route)
     */
    private int interfaceFor(InetAddress group, NetworkInterface iface) {
        if (group == null || !group.isMulticastAddress()) {
            throw new IllegalArgumentException("not a multicast group: " + group);
        }
        if (group.getAddress().length == 16 && !ipv6) {
            throw new IllegalArgumentException("an IPv6 group on an IPv4 socket: " + group);
        }
        NetworkInterface i = iface != null ? iface : config.getNetworkInterface();
        return i == null ? 0 : i.getIndex();
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress) {
        return joinGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, ChannelPromise future) {
        return membership(true, multicastAddress, null, null, future);
    }

    @Override
    public ChannelFuture joinGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface) {
        return joinGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface,
                                   ChannelPromise future) {
        return membership(true, multicastAddress.getAddress(), networkInterface, null, future);
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                   InetAddress source) {
        return joinGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture joinGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                   InetAddress source, ChannelPromise future) {
        return membership(true, multicastAddress, networkInterface, source, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress) {
        return leaveGroup(multicastAddress, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, ChannelPromise future) {
        return membership(false, multicastAddress, null, null, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface) {
        return leaveGroup(multicastAddress, networkInterface, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetSocketAddress multicastAddress, NetworkInterface networkInterface,
                                    ChannelPromise future) {
        return membership(false, multicastAddress.getAddress(), networkInterface, null, future);
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                    InetAddress source) {
        return leaveGroup(multicastAddress, networkInterface, source, newPromise());
    }

    @Override
    public ChannelFuture leaveGroup(InetAddress multicastAddress, NetworkInterface networkInterface,
                                    InetAddress source, ChannelPromise future) {
        return membership(false, multicastAddress, networkInterface, source, future);
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, NetworkInterface networkInterface,
                               InetAddress sourceToBlock) {
        return block(multicastAddress, networkInterface, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, NetworkInterface networkInterface,
                               InetAddress sourceToBlock, ChannelPromise future) {
        return blockSource(multicastAddress, networkInterface, sourceToBlock, future);
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, InetAddress sourceToBlock) {
        return block(multicastAddress, sourceToBlock, newPromise());
    }

    @Override
    public ChannelFuture block(InetAddress multicastAddress, InetAddress sourceToBlock, ChannelPromise future) {
        return blockSource(multicastAddress, null, sourceToBlock, future);
    }
}
