package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.internal.logging.InternalLogLevel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import io.ringwire.uring.Libc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The server side of {@link AcceptStormTest}, in a fresh JVM of its own: an echo server on two Ringwire loops that logs
 * through the JDK's logger, as a program without a logging library does, and has logged nothing before the storm (one
 * echo has loaded the classes a connection needs, as a server running from jars would need no file to load them).
 * Once listening it lowers its own open-file limit so that {@code headroom} more descriptors fit, prints
 * {@code READY <port> <limit>}, and serves until a line arrives on its standard input; then it prints
 * {@code COUNTERS <acceptBackoffs> <handlerFailures> <accepts>} and exits.
 *
 * <p>Arguments: the headroom, and {@code jdk} or {@code failing}: a logger whose warnings and errors throw the Error
 * the JDK's logger threw when it first read its time-zone file while out of descriptors, so that such a failure
 * reaches the event loop whatever the logger.
 */
public final class AcceptStormServer {
    private AcceptStormServer() { }

    /** The JDK's logger, except that a warning or an error throws. */
    private static final InternalLoggerFactory FAILING = new InternalLoggerFactory() {
        @Override
        protected InternalLogger newInstance(String name) {
            InternalLogger jdk = ((JdkLoggerFactory) JdkLoggerFactory.INSTANCE).newInstance(name);
            return (InternalLogger) Proxy.newProxyInstance(InternalLogger.class.getClassLoader(),
                new Class<?>[] {InternalLogger.class}, (proxy, method, args) -> {
                    String m = method.getName();
                    if (m.equals("warn") || m.equals("error")
                        || m.equals("log") && args[0] != InternalLogLevel.DEBUG && args[0] != InternalLogLevel.TRACE) {
                        throw new NoClassDefFoundError("Could not initialize class sun.util.calendar.ZoneInfoFile "
                            + "(a logger that fails, as the JDK's did out of descriptors)");
                    }
                    try {
                        return method.invoke(jdk, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        }
    };

    public static void main(String[] args) throws Exception {
        int headroom = Integer.parseInt(args[0]);
        InternalLoggerFactory.setDefaultFactory("failing".equals(args[1]) ? FAILING : JdkLoggerFactory.INSTANCE);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
        try {
            TrackingEcho echo = new TrackingEcho(0);
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096).childHandler(echo)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                loop.submit(() -> { }).sync(); // both loops running, their rings made
            }
            // One echo first, so that no class is loaded for the first time during the storm: run from directories,
            // as here, each class's first load opens a file (from a jar, once open, it does not). Nothing is logged.
            try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                s.getOutputStream().write(1);
                if (s.getInputStream().read() != 1) {
                    throw new IllegalStateException("the warm-up echo failed");
                }
            }
            // An ACCEPT takes the open-file limit when it is prepared, and a multishot one keeps it: accepts pause
            // while the limit is lowered, as a process started with a low limit would have had it from the start.
            server.config().setAutoRead(false);
            server.eventLoop().submit(() -> { }).sync();
            long limit = limitLeaving(headroom);
            try (Arena arena = Arena.ofConfined()) {
                if (Libc.prlimit(Libc.RLIMIT_NOFILE, limit, limit, arena.allocate(16, 8)) != 0) {
                    throw new IllegalStateException("could not lower RLIMIT_NOFILE to " + limit);
                }
            }
            server.config().setAutoRead(true);
            System.out.println("READY " + ((InetSocketAddress) server.localAddress()).getPort() + " " + limit);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            long backoffs = 0;
            long failures = 0;
            long accepts = 0;
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                RingwireCounters c = RingwireCounters.of(loop);
                backoffs += loop.submit(c::acceptBackoffs).get();
                failures += loop.submit(c::handlerFailures).get();
                accepts += loop.submit(c::accepts).get();
            }
            System.out.println("COUNTERS " + backoffs + " " + failures + " " + accepts + " alive="
                + server.isActive());
            System.out.flush();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * RLIMIT_NOFILE bounds descriptor numbers, not their count, and a new descriptor takes the lowest free number:
     * the limit below which exactly {@code free} numbers are unused (the JVM's start leaves holes).
     */
    private static long limitLeaving(int free) throws Exception {
        java.util.Set<Long> open;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            open = s.map(p -> Long.parseLong(p.getFileName().toString()))
                .collect(java.util.stream.Collectors.toSet());
        }
        long n = 0;
        for (int left = free; left > 0; n++) {
            if (!open.contains(n)) {
                left--;
            }
        }
        return n;
    }
}
