package io.ringwire.uring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.uring.IoUringConstants.*;
import static io.ringwire.uring.SocketConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Sockets that live only in a ring's fixed-file table: accepted there, read, written, their options read and set,
 * moved to another ring, closed, created and connected there; none of it holds a file descriptor.
 */
class DirectDescriptorsTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private long fdsBefore;
    private IoUring ring;
    private Cqes cqes;
    private Arena arena;
    private final List<Integer> fdsToClose = new ArrayList<>();

    @BeforeAll
    static void requireDirectDescriptors() throws Exception {
        // java.net opens descriptors of its own once per JVM (the pre-close socket NIO dup2s over closed fds): open
        // them now so the per-test fd count sees only what the test itself opens
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket c = new Socket(InetAddress.getLoopbackAddress(), s.getLocalPort());
             Socket a = s.accept()) {
            c.getOutputStream().write(1);
            a.getInputStream().read();
        }
        IoUringProbe p = IoUringProbe.get();
        assumeTrue(p.isAvailable() && p.isDirectDescriptorsSupported(),
            "kernel lacks what direct descriptors need: " + p.missingForDirectDescriptors());
    }

    @BeforeEach
    void setUp() throws Exception {
        fdsBefore = FdCount.now();
        ring = IoUring.builder().entries(64).cqEntries(256).build();
        assertEquals(0, ring.registerFileTable(16));
        cqes = new Cqes(ring);
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        for (int fd : fdsToClose) {
            Libc.close(fd);
        }
        ring.close();
        arena.close();
        assertEquals(fdsBefore, FdCount.now(), () -> "file descriptors leaked: " + FdCount.list());
    }

    private int listener() throws Exception {
        int fd = Sockets.open(AF_INET, SOCK_STREAM);
        fdsToClose.add(fd);
        Sockets.bind(fd, ANY_LOOPBACK);
        Sockets.listen(fd, 16);
        return fd;
    }

    private int run(long userData) {
        Cqes.Cqe c = cqes.awaitUserData(userData);
        return c.res();
    }

    @Test
    void anAcceptedSocketLivesInASlotAndServesWithoutAnFd() throws Exception {
        int lfd = listener();
        Sockets.setInt(lfd, IPPROTO_TCP, TCP_NODELAY, 1);
        ring.sq().prepAcceptMultishotDirect(lfd, SOCK_NONBLOCK, 1);
        ring.submit();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) Sockets.localAddress(lfd)).getPort())) {
            long fdsWithClient = FdCount.now(); // the kernel accepts when the ring's owner next enters
            Cqes.Cqe accepted = cqes.awaitUserData(1);
            int slot = accepted.res();
            assertTrue(slot >= 0 && slot < 16, () -> "a slot: " + Errno.name(slot));
            assertTrue(accepted.more(), "the multishot accept stays armed");
            assertEquals(fdsWithClient, FdCount.now(), "the accepted socket holds no fd");

            // the peer's address with getsockopt(SO_PEERNAME), no fd
            MemorySegment v = arena.allocate(128, 8);
            long sqe = ring.sq().prepCmdSock(SOCKET_URING_OP_GETSOCKOPT, slot, SOL_SOCKET, SO_PEERNAME, v.address(),
                SockAddr.IN_SIZE, 2);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(SockAddr.IN_SIZE, run(2));
            assertEquals(new InetSocketAddress(client.getLocalAddress(), client.getLocalPort()),
                SockAddr.read(v, SockAddr.IN_SIZE));

            // an option set at any level, and read back through an fd installed for the call
            v.set(JAVA_INT, 0, 1);
            sqe = ring.sq().prepCmdSock(SOCKET_URING_OP_SETSOCKOPT, slot, SOL_SOCKET, SO_KEEPALIVE, v.address(), 4, 3);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(0, run(3));
            sqe = ring.sq().prepCmdSock(SOCKET_URING_OP_GETSOCKOPT, slot, IPPROTO_TCP, TCP_NODELAY, v.address(), 4, 4);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(-Errno.EOPNOTSUPP, run(4), "getsockopt takes SOL_SOCKET only");
            ring.sq().prepFixedFdInstall(slot, 0, 5);
            int fd = run(5);
            assertTrue(fd >= 0, () -> Errno.name(fd));
            try {
                assertEquals(1, Sockets.getInt(fd, SOL_SOCKET, SO_KEEPALIVE));
                assertEquals(1, Sockets.getInt(fd, IPPROTO_TCP, TCP_NODELAY), "TCP_NODELAY came from the listener");
            } finally {
                Libc.close(fd);
            }

            // bytes both ways through the slot
            MemorySegment buf = arena.allocate(64);
            client.getOutputStream().write(new byte[] {1, 2, 3});
            sqe = ring.sq().prepRecv(slot, buf.address(), 64, 0, 6);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(3, run(6));
            assertEquals(3, buf.get(JAVA_BYTE, 2));
            sqe = ring.sq().prepSend(slot, buf.address(), 3, MSG_NOSIGNAL, 7);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(3, run(7));
            InputStream in = client.getInputStream();
            assertArrayEquals(new byte[] {1, 2, 3}, in.readNBytes(3));

            // closing the slot closes the socket: the peer sees the end of the stream
            ring.sq().prepCloseDirect(slot, 8);
            assertEquals(0, run(8));
            assertEquals(-1, in.read());
            ring.sq().prepCancel(1, 0, 9);
            run(9);
        }
    }

    @Test
    void msgRingMovesASlotToAnotherRingsTable() throws Exception {
        int lfd = listener();
        ring.sq().prepAcceptDirect(lfd, SOCK_NONBLOCK, 1);
        ring.submit();
        try (IoUring other = IoUring.builder().entries(8).build();
             Socket client = new Socket(InetAddress.getLoopbackAddress(),
                 ((InetSocketAddress) Sockets.localAddress(lfd)).getPort())) {
            other.enable();
            assertEquals(0, other.registerFileTable(4));
            int slot = run(1);
            assertTrue(slot >= 0, () -> Errno.name(slot));
            ring.sq().prepMsgRingFd(other.fd(), slot, 42, 2);
            Cqes otherCqes = new Cqes(other);
            int moved = run(2);
            assertTrue(moved >= 0 && moved < 4, () -> "the target's slot: " + Errno.name(moved));
            Cqes.Cqe arrived = otherCqes.awaitUserData(42);
            assertEquals(moved, arrived.res(), "the target hears of the slot it got");
            ring.sq().prepCloseDirect(slot, 3);
            assertEquals(0, run(3), "the source empties its own slot");

            MemorySegment buf = arena.allocate(8);
            buf.set(JAVA_BYTE, 0, (byte) 7);
            long sqe = other.sq().prepSend(moved, buf.address(), 1, MSG_NOSIGNAL, 4);
            other.sq().setFixedFileSlot(sqe, moved);
            assertEquals(1, otherCqes.awaitUserData(4).res());
            assertEquals(7, client.getInputStream().read());
            other.sq().prepCloseDirect(moved, 5);
            assertEquals(0, otherCqes.awaitUserData(5).res());
            assertEquals(-1, client.getInputStream().read());
        }
    }

    @Test
    void aClientSocketIsCreatedBoundAndConnectedInASlot() throws Exception {
        assumeTrue(IoUringProbe.get().isSocketDirectSupported(), "no SOCKET into a slot");
        int lfd = listener();
        InetSocketAddress server = (InetSocketAddress) Sockets.localAddress(lfd);
        ring.sq().prepSocketDirect(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0, -1, 1);
        int slot = run(1);
        assertTrue(slot >= 0, () -> Errno.name(slot));
        MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
        if (IoUringProbe.get().isBindSupported()) {
            int len = SockAddr.write(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 2}), 0), sa,
                false);
            long sqe = ring.sq().prepBind(slot, sa.address(), len, 2);
            ring.sq().setFixedFileSlot(sqe, slot);
            assertEquals(0, run(2));
        }
        int len = SockAddr.write(server, sa, false);
        long sqe = ring.sq().prepConnect(slot, sa.address(), len, 3);
        ring.sq().setFixedFileSlot(sqe, slot);
        assertEquals(0, run(3));
        MemorySegment peer = arena.allocate(SockAddr.STORAGE_SIZE, 8);
        MemorySegment peerLen = arena.allocate(JAVA_INT);
        peerLen.set(JAVA_INT, 0, SockAddr.STORAGE_SIZE);
        int accepted = NativeIoException.check(Libc.accept4(lfd, peer, peerLen, SOCK_CLOEXEC), "accept");
        fdsToClose.add(accepted);
        if (IoUringProbe.get().isBindSupported()) {
            assertEquals(InetAddress.getByAddress(new byte[] {127, 0, 0, 2}),
                ((InetSocketAddress) SockAddr.read(peer, peerLen.get(JAVA_INT, 0))).getAddress(),
                "it connected from the address it was bound to");
        }
        ring.sq().prepCloseDirect(slot, 4);
        assertEquals(0, run(4));
    }

    @Test
    void aFullTableRefusesTheAcceptWithEnfile() throws Exception {
        int lfd = listener();
        int port = ((InetSocketAddress) Sockets.localAddress(lfd)).getPort();
        ring.sq().prepAcceptMultishotDirect(lfd, SOCK_NONBLOCK, 1);
        ring.submit();
        List<Socket> clients = new ArrayList<>();
        try {
            int slots = 0;
            int last = 0;
            for (int i = 0; i < 17; i++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
            }
            List<Cqes.Cqe> seen = cqes.awaitTotal(17);
            for (Cqes.Cqe c : seen) {
                assertEquals(1, c.userData());
                if (c.res() >= 0) {
                    slots++;
                } else {
                    last = c.res();
                    assertFalse(c.more(), "the multishot accept ends at the error");
                }
            }
            assertEquals(16, slots, "every slot filled");
            assertEquals(-Errno.ENFILE, last);
            for (int s = 0; s < 16; s++) {
                ring.sq().prepCloseDirect(s, 100 + s);
            }
            for (int s = 0; s < 16; s++) {
                assertEquals(0, run(100 + s));
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
    }
}
