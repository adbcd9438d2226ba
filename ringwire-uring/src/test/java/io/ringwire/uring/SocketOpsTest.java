package io.ringwire.uring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.ringwire.uring.SocketConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The binding against real loopback sockets: accept, recv into a buffer ring, send, writev, connect, errors. */
class SocketOpsTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private long fdsBefore;
    private IoUring ring;
    private Cqes cqes;
    private final List<Integer> fdsToClose = new ArrayList<>();

    @BeforeAll
    static void requireFeatures() throws Exception {
        // java.net opens descriptors of its own once per JVM (e.g. the pre-close socket NIO dup2s over closed fds);
        // open them now so the per-test fd count sees only what the test itself opens
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket c = new Socket(InetAddress.getLoopbackAddress(), s.getLocalPort());
             Socket a = s.accept()) {
            c.getOutputStream().write(1);
            a.getInputStream().read();
        }
        IoUringProbe p = IoUringProbe.get();
        assumeTrue(p.isAvailable() && p.isMultishotAcceptSupported() && p.isMultishotRecvSupported()
            && p.isBufferRingSupported(), "kernel lacks multishot accept/recv or buffer rings: " + p.missingForRingwire());
    }

    @BeforeEach
    void setUp() throws Exception {
        fdsBefore = FdCount.now();
        ring = IoUring.builder().entries(64).cqEntries(256).build();
        cqes = new Cqes(ring);
    }

    @AfterEach
    void tearDown() {
        for (int fd : fdsToClose) {
            Libc.close(fd);
        }
        ring.close();
        assertEquals(fdsBefore, FdCount.now(), () -> "file descriptors leaked: " + FdCount.list());
    }

    private int listener() throws Exception {
        int fd = Sockets.open(AF_INET, SOCK_STREAM);
        fdsToClose.add(fd);
        Sockets.setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
        Sockets.bind(fd, ANY_LOOPBACK);
        Sockets.listen(fd, 128);
        return fd;
    }

    private static int port(int fd) throws Exception {
        return ((InetSocketAddress) Sockets.localAddress(fd)).getPort();
    }

    /** One accepted connection: a java.net client and the server-side fd accepted by the ring. */
    private record Pair(Socket client, int serverFd) { }

    private Pair connectedPair() throws Exception {
        int lfd = listener();
        ring.sq().prepAccept(lfd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC, 1);
        Socket client = new Socket(InetAddress.getLoopbackAddress(), port(lfd));
        Cqes.Cqe c = cqes.awaitUserData(1);
        assertTrue(c.res() >= 0, () -> Errno.name(c.res()));
        fdsToClose.add(c.res());
        return new Pair(client, c.res());
    }

    @Test
    void shouldAcceptSeveralClientsWithOneMultishotAccept() throws Exception {
        int lfd = listener();
        ring.sq().prepAcceptMultishot(lfd, SOCK_NONBLOCK | SOCK_CLOEXEC, 5);
        ring.submit();
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), port(lfd)));
            }
            List<Cqes.Cqe> seen = cqes.awaitTotal(5);
            Set<Integer> fds = new HashSet<>();
            for (Cqes.Cqe c : seen) {
                assertEquals(5, c.userData());
                assertTrue(c.res() >= 0, () -> Errno.name(c.res()));
                assertTrue(c.more(), "multishot accept stays armed");
                fds.add(c.res());
                fdsToClose.add(c.res());
                assertEquals(clients.get(0).getLocalAddress(),
                    ((InetSocketAddress) Sockets.remoteAddress(c.res())).getAddress());
            }
            assertEquals(5, fds.size(), "five distinct connections");
            assertEquals(1, ring.sqesSubmitted(), "one SQE served all five");
            cqes.seen.clear();
            ring.sq().prepCancel(5, 0, 6);
            Cqes.Cqe ended = cqes.awaitUserData(5);
            assertEquals(-Errno.ECANCELED, ended.res());
            assertFalse(ended.more());
            cqes.awaitUserData(6);
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
    }

    @Test
    void shouldReceiveIntoBufferRingAndRearmAfterEnobufsWithoutLosingBytes() throws Exception {
        Pair p = connectedPair();
        final int entries = 4;
        final int size = 64;
        try (Socket client = p.client(); BufferRing buffers = BufferRing.register(ring, (short) 1, entries, size)) {
            byte[] sent = new byte[entries * size * 5 + 17];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) (i * 31 + 7);
            }
            OutputStream out = client.getOutputStream();
            out.write(sent);
            out.flush();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            int enobufs = 0;
            int arms = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (got.size() < sent.length) {
                // arm, then read CQEs without returning any buffer until the request ends: with more data than
                // the ring holds, it must end with ENOBUFS
                ring.sq().prepRecvMultishot(p.serverFd(), buffers.groupId(), 0, 10 + arms);
                arms++;
                List<Integer> held = new ArrayList<>();
                boolean more = true;
                while (more) {
                    assertTrue(System.nanoTime() < deadline, "stuck at " + got.size() + " of " + sent.length);
                    ring.submitAndWait(1, 200_000_000L);
                    List<Cqes.Cqe> batch = new ArrayList<>();
                    ring.cq().drain((ud, res, flags) -> batch.add(new Cqes.Cqe(ud, res, flags)), 64);
                    for (Cqes.Cqe c : batch) {
                        more = c.more();
                        if (c.res() == -Errno.ENOBUFS) {
                            enobufs++;
                            continue;
                        }
                        assertTrue(c.res() > 0, () -> "recv: " + Errno.name(c.res()));
                        assertTrue(c.hasBuffer());
                        buffers.taken();
                        byte[] chunk = new byte[c.res()];
                        MemorySegment.copy(buffers.segment(), JAVA_BYTE, (long) c.bufferId() * size, chunk, 0,
                            c.res());
                        got.write(chunk);
                        held.add(c.bufferId());
                    }
                    if (got.size() == sent.length) {
                        break;
                    }
                }
                for (int bid : held) {
                    buffers.recycle(bid);
                }
                buffers.publish();
            }
            assertArrayEquals(sent, got.toByteArray(), "every byte, in order");
            assertTrue(enobufs >= 1, "the ring ran dry at least once");
            assertTrue(arms >= 2, "the recv was re-armed after ENOBUFS");
            assertEquals(0, buffers.outstanding());
            ring.sq().prepCancelFd(p.serverFd(), 11);
            cqes.awaitUserData(11);
            ring.cq().drain(cqes, 64); // the cancelled recv's CQE, if it was still armed
        }
    }

    @Test
    void aGrowableRingStartsSmallAndGrowsWhenItRunsDry() throws Exception {
        Pair p = connectedPair();
        final int size = 64;
        try (Socket client = p.client(); BufferRing buffers = BufferRing.registerGrowable(ring, (short) 3, 8, size, 2)) {
            assertEquals(2, buffers.provided());
            byte[] sent = new byte[size * 6];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) (i * 13 + 1);
            }
            client.getOutputStream().write(sent);
            client.getOutputStream().flush();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            java.util.Set<Integer> used = new java.util.TreeSet<>();
            int enobufs = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            int ud = 30;
            // buffers are never returned: only growing lets the receive go on
            while (got.size() < sent.length) {
                ring.sq().prepRecvMultishot(p.serverFd(), buffers.groupId(), 0, ud++);
                boolean more = true;
                while (more && got.size() < sent.length) {
                    assertTrue(System.nanoTime() < deadline, "stuck at " + got.size() + " of " + sent.length);
                    ring.submitAndWait(1, 200_000_000L);
                    List<Cqes.Cqe> batch = new ArrayList<>();
                    ring.cq().drain((u, res, flags) -> batch.add(new Cqes.Cqe(u, res, flags)), 64);
                    for (Cqes.Cqe c : batch) {
                        more = c.more();
                        if (c.res() == -Errno.ENOBUFS) {
                            enobufs++;
                            assertTrue(buffers.grow(), "room to grow while fewer than 8 are in use");
                            continue;
                        }
                        assertTrue(c.res() > 0, () -> "recv: " + Errno.name(c.res()));
                        assertTrue(c.bufferId() < buffers.provided(), "only buffers in use are handed out");
                        used.add(c.bufferId());
                        byte[] chunk = new byte[c.res()];
                        MemorySegment.copy(buffers.segment(), JAVA_BYTE, (long) c.bufferId() * size, chunk, 0,
                            c.res());
                        got.write(chunk);
                    }
                }
            }
            assertArrayEquals(sent, got.toByteArray(), "every byte, in order");
            assertTrue(enobufs >= 2, "it ran dry at 2 and at 4 buffers: " + enobufs);
            assertEquals(8, buffers.provided(), "doubled twice: 2, 4, 8");
            assertTrue(used.size() >= 5, "buffers past the first two were used: " + used);
            assertFalse(buffers.grow(), "no room past its entries");
            ring.sq().prepCancelFd(p.serverFd(), 31_000);
            cqes.awaitUserData(31_000);
            ring.cq().drain(cqes, 64);
        }
    }

    @Test
    void shouldConsumeIncrementalBuffersPieceByPiece() throws Exception {
        Pair p = connectedPair();
        final int size = 4096;
        BufferRing incremental;
        try {
            incremental = BufferRing.registerIncremental(ring, (short) 2, 2, size);
        } catch (NativeIoException e) {
            assumeTrue(e.errno() != Errno.EINVAL, "kernel before 6.12: no IOU_PBUF_RING_INC");
            throw e;
        }
        try (Socket client = p.client(); BufferRing buffers = incremental) {
            assertTrue(buffers.isIncremental());
            ring.sq().prepRecvMultishot(p.serverFd(), buffers.groupId(), 0, 21);
            ring.submit();
            OutputStream out = client.getOutputStream();
            java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            List<Integer> bids = new ArrayList<>();
            List<Integer> offsets = new ArrayList<>();
            long deadline = System.nanoTime() + 10_000_000_000L;
            // three small messages, one at a time: each lands after the previous one in the same buffer
            for (int m = 0; m < 3; m++) {
                byte[] msg = new byte[100 + m];
                java.util.Arrays.fill(msg, (byte) ('a' + m));
                out.write(msg);
                out.flush();
                sent.write(msg);
                while (got.size() < sent.size()) {
                    assertTrue(System.nanoTime() < deadline, "stuck at " + got.size());
                    ring.submitAndWait(1, 200_000_000L);
                    List<Cqes.Cqe> batch = new ArrayList<>();
                    ring.cq().drain((ud, res, flags) -> batch.add(new Cqes.Cqe(ud, res, flags)), 64);
                    for (Cqes.Cqe c : batch) {
                        assertTrue(c.res() > 0, () -> "recv: " + Errno.name(c.res()));
                        int offset = buffers.dataOffset(c.bufferId());
                        byte[] chunk = new byte[c.res()];
                        MemorySegment.copy(buffers.segment(), JAVA_BYTE, (long) c.bufferId() * size + offset, chunk,
                            0, c.res());
                        got.write(chunk);
                        bids.add(c.bufferId());
                        offsets.add(offset);
                        assertTrue((c.flags() & IoUringConstants.IORING_CQE_F_BUF_MORE) != 0,
                            "a 4 KiB buffer is not used up by ~100 bytes");
                        buffers.release(c.bufferId(), c.res(), c.flags());
                    }
                }
            }
            assertArrayEquals(sent.toByteArray(), got.toByteArray(), "every byte, in order");
            assertEquals(1, bids.stream().distinct().count(), "one buffer served every receive: " + bids);
            assertEquals(List.of(0, 100, 201), offsets);
            ring.sq().prepCancelFd(p.serverFd(), 22);
            cqes.awaitUserData(22);
            ring.cq().drain(cqes, 64);
        }
    }

    @Test
    void shouldSendAndWritevManyBuffers() throws Exception {
        Pair p = connectedPair();
        try (Socket client = p.client(); Arena arena = Arena.ofConfined()) {
            int n = 64;
            int each = 100;
            MemorySegment data = arena.allocate((long) n * each);
            for (int i = 0; i < n * each; i++) {
                data.set(JAVA_BYTE, i, (byte) i);
            }
            MemorySegment iov = arena.allocate(16L * n, 8); // struct iovec { void *base; size_t len; }
            for (int i = 0; i < n; i++) {
                iov.set(JAVA_LONG, 16L * i, data.address() + (long) i * each);
                iov.set(JAVA_LONG, 16L * i + 8, each);
            }
            ring.sq().prepWritev(p.serverFd(), iov.address(), n, -1, 20);
            ring.sq().prepSend(p.serverFd(), data.address(), 10, MSG_NOSIGNAL, 21);
            assertEquals(n * each, cqes.awaitUserData(20).res());
            assertEquals(10, cqes.awaitUserData(21).res());
            InputStream in = client.getInputStream();
            byte[] got = in.readNBytes(n * each + 10);
            for (int i = 0; i < n * each; i++) {
                assertEquals((byte) i, got[i], "byte " + i);
            }
            for (int i = 0; i < 10; i++) {
                assertEquals((byte) i, got[n * each + i]);
            }
        }
    }

    @Test
    void shouldConnectAndReportRefusedConnectionByName() throws Exception {
        // a port that was bound and closed again: nothing listens there
        int probe = Sockets.open(AF_INET, SOCK_STREAM);
        Sockets.bind(probe, ANY_LOOPBACK);
        int deadPort = port(probe);
        Libc.close(probe);
        try (ServerSocket live = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()); Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
            int ok = Sockets.open(AF_INET, SOCK_STREAM);
            fdsToClose.add(ok);
            int len = SockAddr.write(new InetSocketAddress(InetAddress.getLoopbackAddress(), live.getLocalPort()), sa, false);
            ring.sq().prepConnect(ok, sa.address(), len, 30);
            assertEquals(0, cqes.awaitUserData(30).res());
            assertEquals(live.getLocalPort(), ((InetSocketAddress) Sockets.remoteAddress(ok)).getPort());

            int refused = Sockets.open(AF_INET, SOCK_STREAM);
            fdsToClose.add(refused);
            len = SockAddr.write(new InetSocketAddress(InetAddress.getLoopbackAddress(), deadPort), sa, false);
            ring.sq().prepConnect(refused, sa.address(), len, 31);
            int res = cqes.awaitUserData(31).res();
            assertEquals(-Errno.ECONNREFUSED, res);
            NativeIoException e = assertThrows(NativeIoException.class, () -> NativeIoException.check(res, "connect"));
            assertEquals("ECONNREFUSED", e.errnoName());
            assertEquals("connect failed: ECONNREFUSED (Connection refused)", e.getMessage());
        }
    }

    @Test
    void shouldNameErrnoOfBadDescriptor() {
        ring.sq().prepSend(987_654, 0, 0, 0, 40);
        int res = cqes.awaitUserData(40).res();
        assertEquals(-Errno.EBADF, res);
        assertEquals("EBADF", Errno.name(res));
        NativeIoException e = assertThrows(NativeIoException.class, () -> Sockets.close(987_654));
        assertEquals(Errno.EBADF, e.errno());
        assertTrue(e.getMessage().startsWith("close failed: EBADF"), e.getMessage());
    }

    @Test
    void shouldShutdownAndClose() throws Exception {
        Pair p = connectedPair();
        try (Socket client = p.client()) {
            ring.sq().prepShutdown(p.serverFd(), SHUT_WR, 50);
            assertEquals(0, cqes.awaitUserData(50).res());
            assertEquals(-1, client.getInputStream().read(), "the client sees EOF");
            ring.sq().prepClose(p.serverFd(), 51);
            assertEquals(0, cqes.awaitUserData(51).res());
            fdsToClose.remove(Integer.valueOf(p.serverFd()));
        }
    }

    @Test
    void shouldRoundTripSocketOptionsAndAddresses() throws Exception {
        int fd = listener();
        Sockets.setInt(fd, SOL_SOCKET, SO_RCVBUF, 65536);
        assertTrue(Sockets.getInt(fd, SOL_SOCKET, SO_RCVBUF) >= 65536);
        Sockets.setLinger(fd, true, 0);
        assertEquals(0, Sockets.getLinger(fd));
        Sockets.setLinger(fd, false, 0);
        assertEquals(-1, Sockets.getLinger(fd));
        InetSocketAddress local = (InetSocketAddress) Sockets.localAddress(fd);
        assertEquals(InetAddress.getLoopbackAddress(), local.getAddress());
        assertTrue(local.getPort() > 0);
        NativeIoException e = assertThrows(NativeIoException.class, () -> Sockets.remoteAddress(fd));
        assertEquals("ENOTCONN", e.errnoName());
    }

    /**
     * What a SENDMSG that meets EAGAIN does with its control message: the kernel copies the msghdr, the address and
     * the iovecs when it takes the SQE, but reads {@code msg_control} from the caller's memory again each time it
     * issues the send, and a send that found no room is issued again once the socket polls writable (an enter or
     * more later). Here the receiver's queue is full (net.unix.max_dgram_qlen), the control message is rewritten
     * after the submit, and the receiver then drained: the descriptor that arrives is the one written after. So the
     * control memory of a send must stay as it was until its completion.
     */
    @Test
    void aSendmsgRetriedAfterEagainReadsItsControlMessageFromMemoryAgain() throws Exception {
        String name = "\0ringwire-cmsg-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        int receiver = Sockets.open(AF_UNIX, SOCK_DGRAM);
        fdsToClose.add(receiver);
        Sockets.bindUnix(receiver, name);
        int sender = Sockets.open(AF_UNIX, SOCK_DGRAM);
        fdsToClose.add(sender);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
            assertEquals(0, Libc.connect(sender, sa, SockAddr.writeUnix(name, sa)));
            // two pipes: the descriptor in the control message at submission, and the one written there after
            MemorySegment pipes = arena.allocate(JAVA_INT, 4);
            assertEquals(0, Libc.pipe2(pipes, O_CLOEXEC));
            assertEquals(0, Libc.pipe2(pipes.asSlice(8), O_CLOEXEC));
            for (int i = 0; i < 4; i++) {
                fdsToClose.add(pipes.getAtIndex(JAVA_INT, i));
            }
            int atSubmit = pipes.getAtIndex(JAVA_INT, 0);
            int afterSubmit = pipes.getAtIndex(JAVA_INT, 2);
            assertNotEquals(target(atSubmit), target(afterSubmit));

            // the receiver's queue filled: the next datagram meets EAGAIN
            MemorySegment one = arena.allocate(1);
            int queued = 0;
            int res;
            while ((res = Libc.write(sender, one, 1)) == 1) {
                queued++;
            }
            int refused = res;
            assertEquals(-Errno.EAGAIN, refused, () -> Errno.name(refused));

            // msghdr (56), its iovec (16), the byte (8), a control message of one descriptor (CMSG_SPACE(4) = 24)
            MemorySegment send = arena.allocate(104, 8);
            long base = send.address();
            send.set(JAVA_LONG, 16, base + 56);           // msg_iov
            send.set(JAVA_LONG, 24, 1);                   // msg_iovlen
            send.set(JAVA_LONG, 32, base + 80);           // msg_control
            send.set(JAVA_LONG, 40, 24);                  // msg_controllen
            send.set(JAVA_LONG, 56, base + 72);           // iov_base
            send.set(JAVA_LONG, 64, 1);                   // iov_len
            send.set(JAVA_LONG, 80, 20);                  // cmsg_len: CMSG_LEN(sizeof(int))
            send.set(JAVA_INT, 88, SOL_SOCKET);
            send.set(JAVA_INT, 92, SCM_RIGHTS);
            send.set(JAVA_INT, 96, atSubmit);
            ring.sq().prepSendmsg(sender, base, MSG_NOSIGNAL, 30);
            assertEquals(1, ring.submit());
            ring.cq().drain(cqes, Integer.MAX_VALUE);
            assertTrue(cqes.seen.isEmpty(), () -> "the send waits for room: " + cqes.seen);

            send.set(JAVA_INT, 96, afterSubmit); // the control message's memory, reused after the submit
            for (int i = 0; i < queued; i++) {
                assertEquals(1, Libc.read(receiver, one, 1));
            }
            Cqes.Cqe sent = cqes.awaitUserData(30);
            assertTrue(sent.res() >= 0, () -> Errno.name(sent.res()));

            MemorySegment recv = arena.allocate(104, 8);
            base = recv.address();
            recv.set(JAVA_LONG, 16, base + 56);
            recv.set(JAVA_LONG, 24, 1);
            recv.set(JAVA_LONG, 32, base + 80);
            recv.set(JAVA_LONG, 40, 24);
            recv.set(JAVA_LONG, 56, base + 72);
            recv.set(JAVA_LONG, 64, 8);
            ring.sq().prepRecvmsg(receiver, base, MSG_CMSG_CLOEXEC, 31);
            Cqes.Cqe received = cqes.awaitUserData(31);
            assertTrue(received.res() >= 0, () -> Errno.name(received.res()));
            assertEquals(SCM_RIGHTS, recv.get(JAVA_INT, 92), "a descriptor came");
            int got = recv.get(JAVA_INT, 96);
            fdsToClose.add(got);
            assertEquals(target(afterSubmit), target(got),
                "the retried send read the control message as it was when it was retried, not at the submit");
        }
    }

    /** @return what {@code fd} refers to, e.g. {@code pipe:[1234]} */
    private static String target(int fd) throws java.io.IOException {
        return java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/" + fd)).toString();
    }
}
