package io.ringwire.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.ringwire.uring.Libc;
import io.ringwire.uring.SocketConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A channel that closes while one of its SQEs still waits in the SQ must not leave that SQE to act on whatever socket
 * gets the fd number next. The test makes the worst case happen on purpose: in one event-loop task, {@code read()}
 * (autoRead off: a RECV is queued, not yet submitted), {@code close()}, and a new socket put at the very same fd
 * number with bytes already waiting in it. Before the fix the loop's next enter submitted the RECV on the new socket
 * and took its bytes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CloseWithQueuedSqeTest extends OneLoopTestBase {
    @org.junit.jupiter.api.BeforeAll
    static void connectionsWithFds() {
        org.junit.jupiter.api.Assumptions.assumeFalse(RingwireIoHandlerConfig.builder().build().directDescriptors(),
            "a direct descriptor has no fd number to reuse, and its slot is emptied by an SQE queued after the channel's own");
    }

    /** dup3(2): puts a copy of {@code from} at exactly {@code to}. */
    private static void dup3(int from, int to) {
        long number = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> 292;
            case "aarch64" -> 24;
            default -> throw new org.opentest4j.TestAbortedException("no dup3 number for " + System.getProperty(
                "os.arch"));
        };
        long r = Libc.syscall(Libc.newErrnoCapture(), number, from, to, SocketConstants.SOCK_CLOEXEC, 0, 0, 0);
        assertEquals(to, r, "dup3");
    }

    @Test
    void aQueuedRecvDoesNotReadTheNextSocketWithTheSameNumber() throws Exception {
        queuedRecvThenCloseThenNewSocketAtTheSameNumber(group, ch -> { });
    }

    /**
     * The same with an enter between the read() and the close() that the kernel refused: it consumed no SQE, so the
     * RECV still waits in the SQ though the loop's count of enters moved on. The refusal is real: an enter from a
     * thread other than a SINGLE_ISSUER ring's owner fails (EEXIST; EINVAL or EBADF for the owner's registered ring
     * fd), as one short of memory fails with EAGAIN, and both leave the SQ as it was. A loop without a fixed-file
     * table, so that the RECV names the fd.
     */
    @Test
    void aQueuedRecvLeftByAFailedEnterDoesNotReadTheNextSocketWithTheSameNumber() throws Exception {
        io.netty.channel.EventLoopGroup fds = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
            RingwireIoHandler.newFactory(RingwireIoHandlerConfig.builder().fixedFiles(0).build()));
        try {
            queuedRecvThenCloseThenNewSocketAtTheSameNumber(fds, CloseWithQueuedSqeTest::failedEnter);
        } finally {
            fds.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** An enter of the channel's ring that the kernel refuses, made from another thread while the loop waits. */
    private static void failedEnter(Channel ch) throws Exception {
        RingwireIoHandler h = ((RingwireSocketChannel) ch).registration.handler();
        java.lang.reflect.Field f = RingwireIoHandler.class.getDeclaredField("ring");
        f.setAccessible(true);
        io.ringwire.uring.IoUring ring = (io.ringwire.uring.IoUring) f.get(h);
        int queued = h.sq().unconsumed();
        int[] ret = new int[1];
        Thread other = new Thread(() -> ret[0] = ring.submit());
        other.start();
        other.join();
        org.junit.jupiter.api.Assumptions.assumeTrue(ret[0] < 0, "the ring took SQEs from another thread "
            + "(singleIssuer off?): " + ret[0]);
        assertEquals(queued, h.sq().unconsumed(), "the failed enter consumed nothing");
    }

    /** What runs on the loop between the channel's read() and its close(). */
    private interface BeforeClose {
        void run(Channel ch) throws Exception;
    }

    private static void queuedRecvThenCloseThenNewSocketAtTheSameNumber(io.netty.channel.EventLoopGroup group,
                                                                        BeforeClose beforeClose) throws Exception {
        byte[] secret = "bytes for the new socket only".getBytes(StandardCharsets.US_ASCII);
        try (ServerSocket peers = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Arena arena = Arena.ofShared()) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                peers.getLocalPort());
            Channel ch = new Bootstrap().group(group).channel(RingwireSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .connect(address).sync().channel();
            try (Socket ringwirePeer = peers.accept()) {
                Socket[] newPeer = new Socket[1];
                int number = ch.eventLoop().submit(() -> {
                    int fd = ((RingwireSocketChannel) ch).fd().intValue();
                    ch.read();   // a RECV waits in the SQ until the loop's next enter
                    beforeClose.run(ch);
                    ch.close();  // close(2) now; the RECV is still queued
                    // a new socket at the same number, connected, with bytes waiting, all before the next enter
                    int s = connectRaw(address);
                    if (s != fd) {
                        dup3(s, fd);
                        Libc.close(s);
                    }
                    newPeer[0] = peers.accept();
                    try (OutputStream out = newPeer[0].getOutputStream()) {
                        out.write(secret);
                        out.flush();
                    }
                    return fd;
                }).get();
                try {
                    // two more iterations of the loop: any queued SQE has been submitted and has completed
                    ch.eventLoop().submit(() -> { }).sync();
                    ch.eventLoop().submit(() -> { }).sync();
                    MemorySegment buf = arena.allocate(256);
                    int n = Libc.read(number, buf, 256);
                    assertEquals(secret.length, n, "the new socket kept its bytes (negative: -errno, e.g. -EAGAIN "
                        + "when a stale RECV took them)");
                    assertEquals(new String(secret, StandardCharsets.US_ASCII),
                        new String(buf.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            StandardCharsets.US_ASCII));
                } finally {
                    Libc.close(number);
                    if (newPeer[0] != null) {
                        newPeer[0].close();
                    }
                }
            }
        }
    }
}
