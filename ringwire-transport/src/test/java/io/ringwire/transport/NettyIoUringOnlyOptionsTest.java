package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two options of Netty's io_uring transport that Ringwire has no twin for ({@code IO_URING_BUFFER_GROUP_ID},
 * {@code IO_URING_WRITE_ZERO_COPY_THRESHOLD}) are taken and ignored with one warning each that names what to use on
 * Ringwire instead, rather than Netty's bootstrap warning "Unknown channel option", which says nothing of where to go.
 * Options are matched by name, so the check needs Netty's io_uring classes on the test class path only. (Netty's
 * bootstrap logs "Unknown channel option" exactly when the channel's config refuses an option, so a config that takes
 * it is what keeps that line away.)
 */
class NettyIoUringOnlyOptionsTest extends OneLoopTestBase {
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private InternalLoggerFactory previous;

    /** Netty's loggers made from now on record their warnings here (Ringwire makes this one when it warns). */
    @BeforeEach
    void capture() {
        previous = InternalLoggerFactory.getDefaultFactory();
        InternalLoggerFactory.setDefaultFactory(new InternalLoggerFactory() {
            @Override
            protected InternalLogger newInstance(String name) {
                return (InternalLogger) Proxy.newProxyInstance(InternalLogger.class.getClassLoader(),
                    new Class<?>[] {InternalLogger.class}, (proxy, method, args) -> {
                        if (method.getName().equals("warn") && args != null && args.length > 0) {
                            warnings.add(String.valueOf(args[0]));
                        }
                        if (method.getName().equals("name")) {
                            return name;
                        }
                        return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                    });
            }
        });
    }

    @AfterEach
    void release() {
        InternalLoggerFactory.setDefaultFactory(previous);
    }

    @Test
    void bufferGroupIdIsIgnoredWithOneWarningNamingTheReceiveRingSettings() throws Exception {
        Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter())
            .option(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, (short) 7)
            .register().sync().channel();
        try {
            assertTrue(ch.config().setOption(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, (short) 8),
                "taken (and ignored): the bootstrap does not call it unknown");
            List<String> about = warnings.stream().filter(w -> w.contains("IO_URING_BUFFER_GROUP_ID")).toList();
            assertEquals(1, about.size(), () -> "one warning, however often it is set: " + warnings);
            assertTrue(about.get(0).contains("bufferRingEntries") && about.get(0).contains("bufferSize"), about.get(0));
        } finally {
            ch.close().sync();
        }
    }

    @Test
    void zeroCopyThresholdIsIgnoredWithOneWarningNamingSendZcThreshold() throws Exception {
        Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter())
            .register().sync().channel();
        try {
            assertTrue(ch.config().setOption(IoUringChannelOption.IO_URING_WRITE_ZERO_COPY_THRESHOLD, 16_384),
                "taken (and ignored): the bootstrap does not call it unknown");
            assertEquals(0, ch.config().getOption(RingwireChannelOption.SEND_ZC_THRESHOLD),
                "Netty's threshold means something else (-1 is off there): Ringwire's stays as it was");
            String w = warnings.stream().filter(m -> m.contains("IO_URING_WRITE_ZERO_COPY_THRESHOLD")).findFirst()
                .orElseThrow(() -> new AssertionError("no warning: " + warnings));
            assertTrue(w.contains("RingwireChannelOption.SEND_ZC_THRESHOLD"), w);
        } finally {
            ch.close().sync();
        }
    }
}
