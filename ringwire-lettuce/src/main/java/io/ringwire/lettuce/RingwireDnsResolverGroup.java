package io.ringwire.lettuce;

import io.lettuce.core.resource.Transports;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.NameResolver;
import io.netty.resolver.dns.DefaultDnsCache;
import io.netty.resolver.dns.DefaultDnsCnameCache;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.net.InetAddress;

/**
 * The DNS resolver of client resources on Ringwire's loops. A connection resolves its host name on its own event loop,
 * whose channels the resolver opens: on Ringwire's loops (RingwireLettuce's clients) Ringwire's datagram and socket
 * channels; on Lettuce's own loops (a client Lettuce made on the same resources, {@link RingwireEventLoopGroupProvider})
 * the channels of Lettuce's transport, as Lettuce's default resolver opens them. One cache for both.
 */
final class RingwireDnsResolverGroup extends DnsAddressResolverGroup {
    private final RingwireEventLoopGroupProvider loops;
    private final DnsNameResolverBuilder lettuces;

    RingwireDnsResolverGroup(RingwireEventLoopGroupProvider loops) {
        this(loops, new DefaultDnsCnameCache(), new DefaultDnsCache());
    }

    private RingwireDnsResolverGroup(RingwireEventLoopGroupProvider loops, DefaultDnsCnameCache cnames,
                                     DefaultDnsCache addresses) {
        super(new DnsNameResolverBuilder().datagramChannelType(RingwireDatagramChannel.class)
            .socketChannelType(RingwireSocketChannel.class).cnameCache(cnames).resolveCache(addresses));
        this.loops = loops;
        this.lettuces = new DnsNameResolverBuilder().datagramChannelType(Transports.datagramChannelClass())
            .socketChannelType(Transports.socketChannelClass().asSubclass(SocketChannel.class))
            .cnameCache(cnames).resolveCache(addresses);
    }

    @Override
    protected NameResolver<InetAddress> newNameResolver(EventLoop eventLoop,
                                                        ChannelFactory<? extends DatagramChannel> channelFactory,
                                                        DnsServerAddressStreamProvider nameServerProvider)
        throws Exception {
        if (loops.isRingwire(eventLoop)) {
            return super.newNameResolver(eventLoop, channelFactory, nameServerProvider);
        }
        return lettuces.copy().eventLoop(eventLoop).nameServerProvider(nameServerProvider).build();
    }
}
