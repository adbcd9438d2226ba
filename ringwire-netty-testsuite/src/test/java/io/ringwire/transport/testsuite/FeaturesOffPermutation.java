package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ringwire.transport.RingwireChannelOption;
import io.ringwire.transport.RingwireDatagramChannel;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireIoHandlerConfig;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Ringwire with one optional io_uring feature turned off at a time, each against NIO on the other side (Ringwire
 * server × NIO client, NIO server × Ringwire client), so that a path only a feature-less kernel or a cautious user
 * takes is tested as hard as the default one.
 */
final class FeaturesOffPermutation {
    /** Each switch Ringwire has, turned off (or, for the one off by default, on). */
    static final Map<String, UnaryOperator<RingwireIoHandlerConfig.Builder>> SWITCHES = new LinkedHashMap<>();

    static {
        SWITCHES.put("deferTaskrun off", b -> b.deferTaskrun(false));
        SWITCHES.put("singleIssuer off", b -> b.singleIssuer(false));
        SWITCHES.put("noSqArray off", b -> b.noSqArray(false));
        SWITCHES.put("registerRingFd off", b -> b.registerRingFd(false));
        SWITCHES.put("multishotRecv off", b -> b.multishotRecv(false));
        SWITCHES.put("bufferRing off", b -> b.bufferRing(false));
        SWITCHES.put("directReceive off", b -> b.directReceive(false));
        SWITCHES.put("fixedFiles off", b -> b.fixedFiles(0));
    }

    private static final EventLoopGroup NIO = new MultiThreadIoEventLoopGroup(2,
        new DefaultThreadFactory("features-off-nio", true), NioIoHandler.newFactory());
    private static final List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> COMBOS = new ArrayList<>();
    /** Each switch's Ringwire group. */
    private static final Map<String, EventLoopGroup> GROUPS = new LinkedHashMap<>();

    static {
        for (Map.Entry<String, UnaryOperator<RingwireIoHandlerConfig.Builder>> e : SWITCHES.entrySet()) {
            RingwireIoHandlerConfig config = e.getValue().apply(RingwireIoHandlerConfig.builder()).build();
            EventLoopGroup ringwire = new MultiThreadIoEventLoopGroup(2,
                new DefaultThreadFactory("features-off-" + e.getKey().replace(' ', '-'), true),
                RingwireIoHandler.newFactory(config));
            GROUPS.put(e.getKey(), ringwire);
            COMBOS.add(combo("Ringwire (" + e.getKey() + ") server, NIO client",
                () -> new ServerBootstrap().group(ringwire).channel(RingwireServerSocketChannel.class),
                () -> new Bootstrap().group(NIO).channel(NioSocketChannel.class)));
            COMBOS.add(combo("NIO server, Ringwire (" + e.getKey() + ") client",
                () -> new ServerBootstrap().group(NIO).channel(NioServerSocketChannel.class),
                () -> new Bootstrap().group(ringwire).channel(RingwireSocketChannel.class)));
        }
    }

    private FeaturesOffPermutation() { }

    private static <S extends io.netty.bootstrap.AbstractBootstrap<?, ?>> BootstrapComboFactory<S, Bootstrap> combo(
        String name, Supplier<S> server, Supplier<Bootstrap> client) {
        return new BootstrapComboFactory<>() {
            @Override
            public S newServerInstance() {
                return server.get();
            }

            @Override
            public Bootstrap newClientInstance() {
                return client.get();
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return COMBOS;
    }

    private static final EventLoopGroup ZERO_COPY = new MultiThreadIoEventLoopGroup(2,
        new DefaultThreadFactory("zero-copy", true), RingwireIoHandler.newFactory());

    /**
     * Ringwire with every TCP write a zero-copy send (SEND_ZC_THRESHOLD 1; the tests also keep it on after the
     * kernel says it copied, as it does on loopback), against NIO both ways.
     */
    static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> zeroCopy() {
        return List.of(
            combo("Ringwire (every write zero-copy) server, NIO client",
                () -> new ServerBootstrap().group(ZERO_COPY).channel(RingwireServerSocketChannel.class)
                    .childOption(RingwireChannelOption.SEND_ZC_THRESHOLD, 1),
                () -> new Bootstrap().group(NIO).channel(NioSocketChannel.class)),
            combo("NIO server, Ringwire (every write zero-copy) client",
                () -> new ServerBootstrap().group(NIO).channel(NioServerSocketChannel.class),
                () -> new Bootstrap().group(ZERO_COPY).channel(RingwireSocketChannel.class)
                    .option(RingwireChannelOption.SEND_ZC_THRESHOLD, 1)));
    }

    /** Ringwire's datagram channel with each switch, against NIO's, both ways. */
    static List<BootstrapComboFactory<Bootstrap, Bootstrap>> datagram(SocketProtocolFamily family) {
        List<BootstrapComboFactory<Bootstrap, Bootstrap>> combos = new ArrayList<>();
        Supplier<Bootstrap> nio = () -> new Bootstrap().group(NIO)
            .channelFactory((ChannelFactory<Channel>) () -> new NioDatagramChannel(family));
        for (Map.Entry<String, EventLoopGroup> e : GROUPS.entrySet()) {
            Supplier<Bootstrap> ringwire = () -> new Bootstrap().group(e.getValue())
                .channelFactory((ChannelFactory<Channel>) () -> new RingwireDatagramChannel(family));
            combos.add(combo("Ringwire (" + e.getKey() + ") receiver, NIO sender", ringwire, nio));
            combos.add(combo("NIO receiver, Ringwire (" + e.getKey() + ") sender", nio, ringwire));
        }
        return combos;
    }
}
