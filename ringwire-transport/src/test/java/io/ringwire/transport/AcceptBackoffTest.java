package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Out of descriptors, the server stops accepting and tries again later instead of spinning, and it accepts every
 * waiting connection once descriptors are free again.
 */
class AcceptBackoffTest {
    @org.junit.jupiter.api.BeforeAll
    static void connectionsWithFds() {
        org.junit.jupiter.api.Assumptions.assumeFalse(RingwireIoHandlerConfig.builder().build().directDescriptors(),
            "out of descriptors is an fd connection's limit: a loop with direct descriptors accepts into its table, "
                + "whose full case MoreConnectionsThanFdsTest covers");
    }

    private static final int RLIMIT_NOFILE = 7;
    private static final MethodHandle GETRLIMIT = libc("getrlimit");
    private static final MethodHandle SETRLIMIT = libc("setrlimit");

    private static MethodHandle libc(String name) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    @io.netty.channel.ChannelHandler.Sharable
    private static final class CountActive extends ChannelInboundHandlerAdapter {
        private final AtomicInteger count;

        CountActive(AtomicInteger count) {
            this.count = count;
        }

        @Override
        public void channelActive(io.netty.channel.ChannelHandlerContext ctx) {
            count.incrementAndGet();
        }
    }

    private static long highestFd() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.mapToLong(p -> Long.parseLong(p.getFileName().toString())).max().orElse(0);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldBackOffOnEmfileWithoutSpinningAndRecover() throws Throwable {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        List<Socket> clients = new ArrayList<>();
        List<Integer> fillers = new ArrayList<>();
        AtomicInteger accepted = new AtomicInteger();
        try (Arena arena = Arena.ofConfined()) {
            Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false) // accept nothing until the limit is in place
                .childHandler(new CountActive(accepted))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            // warm up the accept path once, so no class is first loaded (a file opened) while out of descriptors
            server.config().setAutoRead(true);
            try (Socket warm = new Socket(InetAddress.getLoopbackAddress(),
                ((InetSocketAddress) server.localAddress()).getPort())) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (accepted.get() == 0 && System.nanoTime() < until) {
                    Thread.sleep(10);
                }
            }
            assertEquals(1, accepted.getAndSet(0));
            assertTrue(new io.ringwire.uring.NativeIoException("accept", -24).getMessage().contains("EMFILE"));
            server.config().setAutoRead(false);
            server.eventLoop().submit(() -> { }).sync();
            int waiting = 8;
            for (int i = 0; i < waiting; i++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(),
                    ((InetSocketAddress) server.localAddress()).getPort()));
            }
            RingwireCounters counters = RingwireCounters.of(server.eventLoop());
            MemorySegment old = arena.allocate(16, 8);
            assertEquals(0, (int) GETRLIMIT.invokeExact(RLIMIT_NOFILE, old));
            MemorySegment tight = arena.allocate(16, 8);
            // RLIMIT_NOFILE bounds descriptor numbers, not their count: fill the holes below the highest open fd,
            // then allow two more numbers, room for two accepted connections, not eight
            long highest = highestFd();
            int filler;
            do {
                filler = io.ringwire.uring.Libc.eventfd(0, io.ringwire.uring.EventFd.EFD_CLOEXEC);
                assertTrue(filler >= 0);
                fillers.add(filler);
            } while (filler < highest);
            tight.set(JAVA_LONG, 0, filler + 1 + 2);
            tight.set(JAVA_LONG, 8, old.get(JAVA_LONG, 8));
            long backoffsBefore = counters.acceptBackoffs();
            long iterationsBefore;
            try {
                assertEquals(0, (int) SETRLIMIT.invokeExact(RLIMIT_NOFILE, tight));
                iterationsBefore = counters.iterations();
                server.config().setAutoRead(true);
                Thread.sleep(1000); // out of descriptors for a second
            } finally {
                assertEquals(0, (int) SETRLIMIT.invokeExact(RLIMIT_NOFILE, old));
            }
            long backoffs = server.eventLoop().submit(counters::acceptBackoffs).get() - backoffsBefore;
            long iterations = server.eventLoop().submit(counters::iterations).get() - iterationsBefore;
            assertTrue(backoffs >= 1, "EMFILE seen and backed off: " + counters);
            // a spinning accept would re-arm thousands of times in a second; a 100 ms back-off (plus Netty's own
            // one-second autoRead pause) allows a handful
            assertTrue(backoffs <= 20, "backed off " + backoffs + " times in a second: " + counters);
            assertTrue(iterations < 1000, "the loop ran " + iterations + " times while out of descriptors");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (accepted.get() < waiting && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(waiting, accepted.get(), "every waiting connection accepted once descriptors were back");
            server.close().sync();
        } finally {
            for (int f : fillers) {
                io.ringwire.uring.Libc.close(f);
            }
            for (Socket s : clients) {
                s.close();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
