package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.ringwire.uring.Libc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The server side of {@link MoreConnectionsThanFdsTest}, in a JVM of its own: first it lowers its open-file limit (soft
 * and hard) to the first argument, then starts an echo server with direct descriptors on as many loops as the second
 * argument says, each loop's table as large as that limit. It prints {@code READY <port> <limit>}; then, for each line
 * on its standard input, {@code STATE open=<n> accepts=<n> backoffs=<n> direct=<n> slots=<n> fds=<n> errors=<n>}
 * (connections open now, accepted in all, accept back-offs, connections on direct descriptors, slots in use, the
 * process's descriptors, errors); at the end of its input it exits.
 */
public final class DirectDescriptorsServer {
    private DirectDescriptorsServer() { }

    public static void main(String[] args) throws Exception {
        long limit = Long.parseLong(args[0]);
        int loops = Integer.parseInt(args[1]);
        try (Arena arena = Arena.ofConfined()) {
            if (Libc.prlimit(Libc.RLIMIT_NOFILE, limit, limit, arena.allocate(16, 8)) != 0) {
                throw new IllegalStateException("could not lower RLIMIT_NOFILE to " + limit);
            }
        }
        RingwireIoHandlerConfig config = RingwireIoHandlerConfig.builder().directDescriptors(true).build();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, RingwireIoHandler.newFactory(config));
        try {
            TrackingEcho echo = new TrackingEcho(0);
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096).childHandler(echo)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            for (EventExecutor loop : group) {
                loop.submit(() -> { }).sync(); // every loop running, its ring and table made
            }
            System.out.println("READY " + ((InetSocketAddress) server.localAddress()).getPort() + " " + limit);
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                long accepts = 0;
                long backoffs = 0;
                long direct = 0;
                long slots = 0;
                for (EventExecutor loop : group) {
                    RingwireCounters c = RingwireCounters.of(loop);
                    accepts += loop.submit(c::accepts).get();
                    backoffs += loop.submit(c::acceptBackoffs).get();
                    direct += loop.submit(c::directDescriptors).get();
                    slots += loop.submit(c::fixedFiles).get();
                }
                System.out.println("STATE open=" + echo.open.get() + " accepts=" + accepts + " backoffs=" + backoffs
                    + " direct=" + direct + " slots=" + slots + " fds=" + TrackingEcho.openFds() + " errors="
                    + echo.errors.get());
                System.out.flush();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
