package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannelOption;
import io.ringwire.uring.Errno;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Passing file descriptors over a Unix domain stream socket (SCM_RIGHTS), as Netty's native domain channels do: a
 * {@link FileDescriptor} written goes to the peer, and a channel in {@link DomainSocketReadMode#FILE_DESCRIPTORS}
 * reads each one passed as a {@link FileDescriptor} of its own process; switched back to bytes, it reads bytes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DescriptorPassingTest extends OneLoopTestBase {
    private static final int O_RDONLY_CLOEXEC = 0x80000;

    @TempDir
    Path dir;

    /** A server whose every connection runs {@code onActive} with its context. */
    private Channel server(DomainSocketAddress address, Consumer<ChannelHandlerContext> onActive) {
        return new ServerBootstrap().group(group).channel(RingwireServerDomainSocketChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    onActive.accept(ctx);
                }
            }).bind(address).syncUninterruptibly().channel();
    }

    /** @return a descriptor of a new file {@code name} holding {@code content}, open for reading */
    private FileDescriptor fileDescriptor(String name, String content) throws Exception {
        Path file = Files.writeString(dir.resolve(name), content);
        int fd = Libc.open(file.toString(), O_RDONLY_CLOEXEC);
        assertTrue(fd >= 0, "open: " + fd);
        return new DescriptorMessage.Received(fd);
    }

    /** A client connected to {@code address}, handing each message it reads to {@code onRead}. */
    private static Channel client(DomainSocketAddress address, Consumer<Object> onRead) throws InterruptedException {
        return new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    onRead.accept(msg);
                }
            }).connect(address).sync().channel();
    }

    /** Closes the client (if it connected), then the server. */
    private static void close(Channel client, Channel server) throws InterruptedException {
        if (client != null) {
            client.close().sync();
        }
        server.close().sync();
    }

    /** Netty's IoUringDomainSocketFdTest: a descriptor, then bytes, read by one channel that changes its mode. */
    @Test
    void aDescriptorThenBytesWithTheReadModeSwitchedBetween() throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("fd.sock").toFile());
        String expected = "Hello World";
        CompletableFuture<FileDescriptor> fdCame = new CompletableFuture<>();
        CompletableFuture<String> bytesCame = new CompletableFuture<>();
        List<RingwireDomainSocketChannel> passed = new CopyOnWriteArrayList<>();
        Channel server = server(address, ctx -> {
            RingwireDomainSocketChannel ch = new RingwireDomainSocketChannel();
            passed.add(ch);
            ctx.writeAndFlush(ch.fd()).addListener(f -> {
                if (!f.isSuccess()) {
                    fdCame.completeExceptionally(f.cause());
                    return;
                }
                ctx.writeAndFlush(Unpooled.copiedBuffer(expected, StandardCharsets.UTF_8));
            });
        });
        Channel client = null;
        try {
            client = new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
                .option(UnixChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
                .handler(new ChannelInboundHandlerAdapter() {
                    private final StringBuilder got = new StringBuilder();

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof FileDescriptor fd) {
                            fdCame.complete(fd);
                            ctx.channel().config().setOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE,
                                DomainSocketReadMode.BYTES);
                        } else {
                            ByteBuf b = (ByteBuf) msg;
                            got.append(b.toString(StandardCharsets.UTF_8));
                            b.release();
                            if (got.length() >= expected.length()) {
                                bytesCame.complete(got.toString());
                            }
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        fdCame.completeExceptionally(cause);
                        bytesCame.completeExceptionally(cause);
                    }
                }).connect(address).sync().channel();

            FileDescriptor fd = fdCame.get(10, TimeUnit.SECONDS);
            assertTrue(fd.isOpen());
            assertNotEquals(0, fd.intValue());
            assertNotEquals(passed.get(0).fd().intValue(), fd.intValue(), "a new number in this process's table");
            fd.close();
            assertFalse(fd.isOpen());
            assertEquals(expected, bytesCame.get(10, TimeUnit.SECONDS));
        } finally {
            close(client, server);
            for (RingwireDomainSocketChannel ch : passed) {
                ch.unsafe().closeForcibly();
            }
        }
    }

    /**
     * A file's descriptor passed twice: each one received reads the file, so it is the same open file; the reader
     * then stays in descriptor mode with a receive in flight and is closed (its buffer comes back: the leak detector
     * watches the module).
     */
    @Test
    void aFilePassedIsTheSameFileAtTheOtherEnd() throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("file.sock").toFile());
        FileDescriptor toPass = fileDescriptor("passed.txt", "the passed file's bytes");
        List<FileDescriptor> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> both = new CompletableFuture<>();
        CompletableFuture<ChannelFuture> sent = new CompletableFuture<>();
        Channel server = server(address, ctx -> {
            ctx.write(toPass);
            sent.complete(ctx.writeAndFlush(toPass));
        });
        Channel client = null;
        try {
            client = new Bootstrap().group(group).channel(RingwireDomainSocketChannel.class)
                .option(UnixChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        received.add((FileDescriptor) msg);
                        if (received.size() == 2) {
                            both.complete(null);
                        }
                    }
                }).connect(address).sync().channel();
            assertTrue(sent.get(10, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
            assertTrue(sent.get().isSuccess(), String.valueOf(sent.get().cause()));
            both.get(10, TimeUnit.SECONDS);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment b = arena.allocate(64);
                int n = Libc.read(received.get(0).intValue(), b, 9);
                assertEquals("the passe", new String(b.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    StandardCharsets.US_ASCII));
                // both descriptors share the open file, and with it its offset
                n = Libc.read(received.get(1).intValue(), b, 64);
                assertEquals("d file's bytes", new String(b.asSlice(0, n).toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII));
            }
            assertTrue(toPass.isOpen(), "the sender's descriptor stays the sender's");
        } finally {
            for (FileDescriptor fd : received) {
                fd.close();
            }
            toPass.close();
            close(client, server);
        }
    }

    @Test
    void aClosedDescriptorFailsItsWriteAloneAndTheConnectionGoesOn() throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("closed.sock").toFile());
        FileDescriptor closed = fileDescriptor("closed.txt", "x");
        closed.close();
        CompletableFuture<ChannelFuture> sent = new CompletableFuture<>();
        Channel server = server(address, ctx -> {
            sent.complete(ctx.write(closed));
            ctx.writeAndFlush(Unpooled.copiedBuffer("after", StandardCharsets.US_ASCII));
        });
        CompletableFuture<String> after = new CompletableFuture<>();
        Channel client = null;
        try {
            client = client(address, msg -> {
                ByteBuf b = (ByteBuf) msg;
                after.complete(b.toString(StandardCharsets.US_ASCII));
                b.release();
            });
            ChannelFuture f = sent.get(10, TimeUnit.SECONDS);
            assertTrue(f.await(10, TimeUnit.SECONDS));
            assertTrue(f.cause() instanceof IllegalArgumentException && f.cause().getMessage().contains("closed"),
                String.valueOf(f.cause()));
            assertEquals("after", after.get(10, TimeUnit.SECONDS), "the write after it still goes");
            assertTrue(f.channel().isActive(), "and the connection stays");
        } finally {
            close(client, server);
        }
    }

    /**
     * A channel reading bytes (its multishot receive armed) switched to descriptors: the receive is cancelled, and
     * the descriptor passed afterwards comes as one, not as its carrier byte.
     */
    @Test
    void switchedToDescriptorsWhileABytesReceiveIsArmed() throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("switch.sock").toFile());
        FileDescriptor toPass = fileDescriptor("switch.txt", "x");
        CompletableFuture<ChannelHandlerContext> serverSide = new CompletableFuture<>();
        Channel server = server(address, serverSide::complete);
        CompletableFuture<Object> came = new CompletableFuture<>();
        Channel client = null;
        try {
            client = client(address, came::complete);
            ChannelHandlerContext peer = serverSide.get(10, TimeUnit.SECONDS);
            Channel c = client;
            c.eventLoop().submit(() -> c.config().setOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE,
                DomainSocketReadMode.FILE_DESCRIPTORS)).sync();
            // client and server share the one loop: the cancel's SQE is queued before the descriptor's SENDMSG,
            // and the kernel takes them in that order, so the cancelled receive cannot take the carrier byte
            assertTrue(peer.writeAndFlush(toPass).await(10, TimeUnit.SECONDS));
            Object msg = came.get(10, TimeUnit.SECONDS);
            assertTrue(msg instanceof FileDescriptor, String.valueOf(msg));
            ((FileDescriptor) msg).close();
        } finally {
            toPass.close();
            close(client, server);
        }
    }

    /**
     * A peer that passes several descriptors in one message (SCM_RIGHTS): the channel's control buffer has room for
     * two (CMSG_SPACE(sizeof(int)) is 24 bytes, as Netty's), so the kernel installs two in this process and closes any
     * more, and says so in the message's flags. The channel closes every one it got, fails the read as Netty's epoll
     * does (no descriptor goes up), and reads on: the next message's descriptor comes. The process holds no
     * descriptor more than before.
     */
    @ParameterizedTest(name = "{0} descriptors in one message")
    @ValueSource(ints = {2, 3})
    void severalDescriptorsInOneMessageAreClosedAndTheReadFails(int descriptors) throws Exception {
        DomainSocketAddress address = new DomainSocketAddress(dir.resolve("several.sock").toFile());
        long fdsBefore = TrackingEcho.openFds();
        List<Object> reads = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        CompletableFuture<Void> firstOutcome = new CompletableFuture<>();
        CompletableFuture<FileDescriptor> next = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerDomainSocketChannel.class)
            .childOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
            .childHandler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel());
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                    reads.add(msg);
                    if (firstOutcome.isDone()) {
                        next.complete((FileDescriptor) msg);
                    } else {
                        ((FileDescriptor) msg).close();
                        firstOutcome.complete(null);
                    }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    failures.add(cause);
                    firstOutcome.complete(null);
                }
            }).bind(address).syncUninterruptibly().channel();
        int peer = Sockets.open(SocketConstants.AF_UNIX, SocketConstants.SOCK_STREAM);
        Channel child = null;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
            NativeIoException.check(Libc.connect(peer, sa, SockAddr.writeUnix(address.path(), sa)), "connect");
            child = accepted.get(10, TimeUnit.SECONDS);
            MemorySegment pipe = arena.allocate(8, 4);
            NativeIoException.check(Libc.pipe2(pipe, O_RDONLY_CLOEXEC), "pipe2");
            int[] ends = {pipe.get(ValueLayout.JAVA_INT, 0), pipe.get(ValueLayout.JAVA_INT, 4)};
            int[] toPass = new int[descriptors];
            for (int i = 0; i < descriptors; i++) {
                toPass[i] = ends[i % 2];
            }
            sendDescriptors(arena, peer, toPass);
            firstOutcome.get(10, TimeUnit.SECONDS);
            sendDescriptors(arena, peer, new int[] {ends[0]});
            FileDescriptor nextOne = next.get(10, TimeUnit.SECONDS);
            nextOne.close();
            Libc.close(ends[0]);
            Libc.close(ends[1]);
        } finally {
            Libc.close(peer);
            if (child != null) {
                child.close().sync();
            }
            server.close().sync();
        }
        assertEquals(fdsBefore, TrackingEcho.openFdsBackTo(fdsBefore), "no descriptor left open");
        assertEquals(1, reads.size(), () -> "only the next message's descriptor went up: " + reads);
        assertEquals(1, failures.size(), () -> "one failed read: " + failures);
        // as Netty's epoll says it: EINVAL for two (they fit), EMSGSIZE when the kernel closed some (truncated)
        int errno = descriptors == 2 ? Errno.EINVAL : Errno.EMSGSIZE;
        assertTrue(failures.get(0) instanceof NativeIoException n && n.errno() == errno,
            String.valueOf(failures.get(0)));
    }

    /** sendmsg(2) of one byte with {@code fds} in one SCM_RIGHTS control message, from a socket of the binding's. */
    private static void sendDescriptors(Arena arena, int socket, int[] fds) throws NativeIoException {
        int dataLength = 4 * fds.length;
        int space = 16 + ((dataLength + 7) & ~7); // CMSG_SPACE
        MemorySegment msghdr = arena.allocate(56, 8);
        MemorySegment iov = arena.allocate(16, 8);
        MemorySegment oneByte = arena.allocate(1);
        MemorySegment control = arena.allocate(space, 8);
        iov.set(ValueLayout.JAVA_LONG, 0, oneByte.address());
        iov.set(ValueLayout.JAVA_LONG, 8, 1);
        msghdr.set(ValueLayout.JAVA_LONG, 16, iov.address());
        msghdr.set(ValueLayout.JAVA_LONG, 24, 1);
        msghdr.set(ValueLayout.JAVA_LONG, 32, control.address());
        msghdr.set(ValueLayout.JAVA_LONG, 40, space);
        control.set(ValueLayout.JAVA_LONG, 0, 16 + dataLength); // CMSG_LEN
        control.set(ValueLayout.JAVA_INT, 8, SocketConstants.SOL_SOCKET);
        control.set(ValueLayout.JAVA_INT, 12, SocketConstants.SCM_RIGHTS);
        for (int i = 0; i < fds.length; i++) {
            control.set(ValueLayout.JAVA_INT, 16 + 4 * i, fds[i]);
        }
        assertEquals(1, NativeIoException.check(Libc.sendmsg(socket, msghdr, 0), "sendmsg"));
    }

    @Test
    void theReadModeIsAnOption() throws Exception {
        RingwireDomainSocketChannel ch = new RingwireDomainSocketChannel();
        group.register(ch).sync();
        try {
            assertEquals(DomainSocketReadMode.BYTES, ch.config().getOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE));
            assertTrue(ch.config().setOption(UnixChannelOption.DOMAIN_SOCKET_READ_MODE,
                DomainSocketReadMode.FILE_DESCRIPTORS));
            assertEquals(DomainSocketReadMode.FILE_DESCRIPTORS, ch.config().getReadMode());
            assertThrows(NullPointerException.class, () -> ch.config().setReadMode(null));
            assertEquals(DomainSocketReadMode.FILE_DESCRIPTORS, ch.config().getReadMode());
        } finally {
            ch.close().sync();
        }
    }
}
