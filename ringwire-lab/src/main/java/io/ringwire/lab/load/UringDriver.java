package io.ringwire.lab.load;

import io.ringwire.lab.load.LoadGenerator.Conn;
import io.ringwire.lab.load.LoadGenerator.Result;
import io.ringwire.lab.load.LoadGenerator.Session;
import io.ringwire.uring.BufferRing;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SockAddr;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;
import io.ringwire.uring.SubmissionQueue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * {@link LoadGenerator}'s I/O on io_uring: connects through CONNECT SQEs (a bounded number at a time, so the
 * server's accept backlog is not flooded), then per connection one multishot RECV into a shared provided buffer ring and at most
 * one SEND in flight (its bytes copied to the connection's native staging space, which stays put until the
 * completion). Each iteration: one {@code io_uring_enter} that submits every SEND queued since the last and
 * waits (closed loop: for a completion; open loop: until the next message is due, with the enter's own timeout,
 * no spinning), then all completions in one batch.
 *
 * <p>More connections than the open-file limit allows descriptors go in direct descriptors: each socket is made
 * in a slot of a ring's fixed-file table (SOCKET, then URING_CMD setsockopt, BIND and CONNECT on the slot, one
 * linked chain), and holds no fd. A table holds at most the open-file limit, so the connections are spread over
 * several rings, all driven by this thread: the others' completions wake its wait in the first through an
 * eventfd they signal (registered with each, read by the first).
 */
final class UringDriver {
    private static final int RECV = 1;
    private static final int SEND = 2;
    private static final int CONNECT = 3;
    private static final int CANCEL = 4;
    /** A direct descriptor's set-up before its CONNECT (SOCKET, setsockopt, BIND): a CQE only when it fails. */
    private static final int SETUP = 5;
    /** The READ of the eventfd the other rings signal. */
    private static final int WAKE = 6;
    private static final int CONNECTS_IN_FLIGHT = 128;

    private final LoadGenerator gen;
    private final Session s;
    private final List<Conn> toFlush = new ArrayList<>();
    private Shard[] shards;
    /** Connections per ring (the last may have fewer). */
    private int perShard;
    private boolean direct;
    private io.ringwire.uring.EventFd wake;
    private MemorySegment wakeBuffer;
    private boolean wakeArmed;
    private boolean woken;
    private Arena arena;
    private long now;
    private int connecting;
    private IOException connectFailure;
    private boolean closing;

    UringDriver(LoadGenerator gen, Session s) {
        this.gen = gen;
        this.s = s;
    }

    private Shard shard(Conn c) {
        return shards[c.id / perShard];
    }

    /** Names the connection's socket in {@code sqe}: its fd, or in direct mode its slot (the fd field holds it). */
    private void named(Shard sh, long sqe, Conn c) {
        if (direct) {
            sh.sq.setFixedFileSlot(sqe, c.fd);
        }
    }

    Result run() throws IOException {
        int conns = gen.config.conns();
        direct = gen.directOverride != null ? gen.directOverride : LoadGenerator.holdsDirect(conns);
        if (direct && !LoadGenerator.directAvailable()) {
            throw new IOException("the io_uring load generator: " + conns + " connections need more descriptors "
                + "than the open-file limit, and this kernel cannot hold them in direct descriptors (it lacks "
                + IoUringProbe.get().missingForDirectDescriptors() + ", or SOCKET or BIND into a slot)");
        }
        perShard = conns;
        if (direct) {
            perShard = gen.slotsPerRing > 0 ? gen.slotsPerRing
                : (int) Math.min(1 << 20, io.ringwire.uring.OpenFileLimit.current().soft());
        }
        int count = (conns + perShard - 1) / perShard;
        List<Conn> all = s.all;
        try {
            arena = Arena.ofConfined();
            shards = new Shard[count];
            for (int i = 0; i < count; i++) {
                shards[i] = newShard(Math.min(perShard, conns - i * perShard));
            }
            if (count > 1) {
                wake = io.ringwire.uring.EventFd.create();
                wakeBuffer = arena.allocate(8, 8);
                for (int i = 1; i < count; i++) {
                    NativeIoException.check(shards[i].ring.registerEventFd(wake.fd()), "IORING_REGISTER_EVENTFD");
                }
            }
            long connectStart = System.nanoTime();
            connectAll();
            s.connectNanos = System.nanoTime() - connectStart;
            for (Conn c : all) {
                armRecv(c);
            }
            s.begin();
            for (Conn c : all) {
                flush(c);
            }
            Shard main = shards[0];
            for (;;) {
                if (s.tick(System.nanoTime())) {
                    return s.result;
                }
                long wait = 10_000_000;
                s.releasePrimed(System.nanoTime(), toFlush::add);
                if (gen.config.openLoop()) {
                    wait = Math.min(wait, s.schedule(System.nanoTime(), toFlush::add));
                }
                flushQueued();
                submitOthers();
                armWake();
                if (main.ring.cq().ready() > 0 || wait <= 0) {
                    main.ring.submitAndWait(0, -1);
                } else {
                    main.ring.submitAndWait(1, wait);
                }
                now = System.nanoTime();
                reap();
                flushQueued();
            }
        } catch (NativeIoException e) {
            throw new IOException("io_uring load generator: " + e.getMessage(), e);
        } finally {
            boolean quiet = quiesce();
            if (!direct) {
                for (Conn c : all) {
                    if (c.fd >= 0) {
                        Libc.close(c.fd);
                    }
                }
            }
            if (shards != null) {
                for (Shard sh : shards) {
                    if (sh != null && sh.ring != null) {
                        sh.ring.close(); // (its fixed-file table, and the sockets in it, with it)
                    }
                }
            }
            if (wake != null) {
                wake.close();
            }
            // memory the kernel may still write to (an operation that did not come back in time) is left
            // allocated rather than freed under it
            if (quiet && shards != null) {
                for (Shard sh : shards) {
                    if (sh != null && sh.buffers != null) {
                        sh.buffers.close();
                    }
                }
            }
            if (quiet && arena != null) {
                arena.close();
            }
        }
    }

    /** A ring for {@code conns} connections, its buffer ring, and in direct mode its fixed-file table. */
    private Shard newShard(int conns) throws NativeIoException {
        // a buffer per answer's worth of bytes, enough of them that one iteration's completions do not empty
        // the ring (it is refilled after every batch)
        long perConn = gen.config.openLoop() ? (long) gen.config.size() * gen.config.batch()
            : (long) gen.config.size() * gen.config.window();
        int bufferSize = perConn >= 64 * 1024 ? 16 * 1024 : perConn >= 8 * 1024 ? 8 * 1024 : 2 * 1024;
        int entries = Math.min(32768, Math.max(1024, Integer.highestOneBit(Math.max(1, conns * 2 - 1)) * 2));
        while ((long) entries * bufferSize > (64L << 20) && entries > 1024) {
            entries /= 2;
        }
        int cqEntries = Math.min(65536, Math.max(4096, Integer.highestOneBit(conns) * 8));
        Shard sh = new Shard();
        sh.ring = IoUring.builder().entries(4096).cqEntries(cqEntries).build();
        sh.sq = sh.ring.sq();
        sh.buffers = BufferRing.register(sh.ring, (short) 0, entries, bufferSize);
        if (direct) {
            NativeIoException.check(sh.ring.registerFileTable(conns), "a fixed-file table of " + conns + " slots");
        }
        return sh;
    }

    /** Submits what the other rings have queued. */
    private void submitOthers() {
        for (int i = 1; i < shards.length; i++) {
            if (shards[i].sq.pending() > 0) {
                shards[i].ring.submit();
            }
        }
    }

    /** Keeps a READ of the other rings' eventfd in the first: its completion ends the first's wait. */
    private void armWake() {
        if (wake != null && !wakeArmed && shards[0].sq.tryReserve()) {
            shards[0].sq.prepRead(wake.fd(), wakeBuffer.address(), 8, -1, userData(0, WAKE));
            wakeArmed = true;
        }
    }

    /**
     * Cancels every armed RECV and SEND and waits (at most a second) for their last completions, so no receive
     * can land in buffer memory after it is freed.
     */
    private boolean quiesce() {
        if (shards == null) {
            return true;
        }
        closing = true;
        for (Shard sh : shards) {
            if (sh != null && sh.buffers != null) {
                sh.sq.prepCancel(0, IoUringConstants.IORING_ASYNC_CANCEL_ANY
                    | IoUringConstants.IORING_ASYNC_CANCEL_ALL, userData(0, CANCEL));
            }
        }
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (busy() && System.nanoTime() < deadline) {
            submitOthers();
            shards[0].ring.submitAndWait(1, shards.length > 1 ? 5_000_000L : 50_000_000L);
            woken = true; // look at every ring
            reap();
        }
        return !busy();
    }

    private boolean busy() {
        for (Conn c : s.all) {
            if (c.receiving || c.sending) {
                return true;
            }
        }
        return connecting > 0 || wakeArmed;
    }

    private void connectAll() throws IOException {
        boolean unix = gen.server instanceof java.net.UnixDomainSocketAddress;
        boolean ipv6 = gen.server instanceof InetSocketAddress inet && inet.getAddress() instanceof Inet6Address;
        MemorySegment sa = arena.allocate(SockAddr.STORAGE_SIZE, 8);
        int saLength = SockAddr.write(gen.server, sa, ipv6);
        int family = unix ? SocketConstants.AF_UNIX : ipv6 ? SocketConstants.AF_INET6 : SocketConstants.AF_INET;
        MemorySegment one = arena.allocate(8, 8);
        one.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, 1); // an int option's value, read when issued
        MemorySegment source = arena.allocate(SockAddr.STORAGE_SIZE, 8);
        InetSocketAddress sourceWritten = null;
        int sourceLength = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (int i = 0; i < gen.config.conns(); i++) {
            Conn c = gen.new Conn(i);
            s.all.add(c);
            Shard sh = shard(c);
            InetSocketAddress from = unix ? null : gen.sourceAddress(i);
            if (!direct) {
                c.fd = Sockets.open(family, SocketConstants.SOCK_STREAM);
                if (!unix) {
                    Sockets.setInt(c.fd, SocketConstants.IPPROTO_TCP, SocketConstants.TCP_NODELAY, 1);
                    if (from != null) {
                        // the port is chosen at connect, by the whole 4-tuple
                        Sockets.setInt(c.fd, SocketConstants.IPPROTO_IP, SocketConstants.IP_BIND_ADDRESS_NO_PORT,
                            1);
                        Sockets.bind(c.fd, from);
                    }
                }
                sh.sq.prepConnect(c.fd, sa.address(), saLength, userData(i, CONNECT));
            } else {
                if (from != null && !from.equals(sourceWritten)) {
                    // BIND copies the address when it is submitted: one buffer, written again per address
                    submitAll();
                    sourceLength = SockAddr.write(from, source, false);
                    sourceWritten = from;
                }
                prepDirectSocket(sh, c, family, unix, from != null, one, source, sourceLength);
                named(sh, sh.sq.prepConnect(c.fd, sa.address(), saLength, userData(i, CONNECT)), c);
            }
            connecting++;
            while (connecting >= CONNECTS_IN_FLIGHT || (i == gen.config.conns() - 1 && connecting > 0)) {
                int before = connecting;
                submitAll();
                sh.ring.submitAndWait(1, shards.length > 1 ? 10_000_000L : 10_000_000_000L);
                woken = true; // completions may be in any ring
                reap();
                if (connectFailure != null) {
                    throw connectFailure;
                }
                if (connecting < before) {
                    deadline = System.nanoTime() + 10_000_000_000L;
                } else if (System.nanoTime() > deadline) {
                    throw new IOException("no connection to " + gen.server + " completed in 10 s (" + connecting
                        + " pending, " + (i + 1) + " of " + gen.config.conns() + " started)");
                }
            }
        }
    }

    /**
     * A socket made in the connection's slot of its ring's table, its options set and (from a source address)
     * bound there, as SQEs linked ahead of its CONNECT: each reports only a failure, and a failure cancels the
     * rest of the chain.
     */
    private void prepDirectSocket(Shard sh, Conn c, int family, boolean unix, boolean bind, MemorySegment one,
                                  MemorySegment source, int sourceLength) {
        c.fd = c.id % perShard; // the slot
        byte chain = (byte) (IoUringConstants.IOSQE_IO_LINK | IoUringConstants.IOSQE_CQE_SKIP_SUCCESS);
        long setup = userData(c.id, SETUP);
        long sqe = sh.sq.prepSocketDirect(family, SocketConstants.SOCK_STREAM | SocketConstants.SOCK_NONBLOCK, 0,
            c.fd, setup);
        sh.sq.addFlags(sqe, chain);
        if (unix) {
            return;
        }
        sqe = sh.sq.prepCmdSock(IoUringConstants.SOCKET_URING_OP_SETSOCKOPT, c.fd, SocketConstants.IPPROTO_TCP,
            SocketConstants.TCP_NODELAY, one.address(), 4, setup);
        named(sh, sqe, c);
        sh.sq.addFlags(sqe, chain);
        if (bind) {
            sqe = sh.sq.prepCmdSock(IoUringConstants.SOCKET_URING_OP_SETSOCKOPT, c.fd, SocketConstants.IPPROTO_IP,
                SocketConstants.IP_BIND_ADDRESS_NO_PORT, one.address(), 4, setup);
            named(sh, sqe, c);
            sh.sq.addFlags(sqe, chain);
            sqe = sh.sq.prepBind(c.fd, source.address(), sourceLength, setup);
            named(sh, sqe, c);
            sh.sq.addFlags(sqe, chain);
        }
    }

    /** Submits what every ring has queued. */
    private void submitAll() {
        for (Shard sh : shards) {
            if (sh.sq.pending() > 0) {
                sh.ring.submit();
            }
        }
    }

    private long userData(int conn, int op) {
        return (long) conn << 8 | op;
    }

    private void armRecv(Conn c) {
        if (!c.lost && !c.receiving) {
            c.receiving = true;
            Shard sh = shard(c);
            named(sh, sh.sq.prepRecvMultishot(c.fd, sh.buffers.groupId(), 0, userData(c.id, RECV)), c);
        }
    }

    /**
     * Hands every completion of every ring to {@link #complete}. A ring runs the work that posts its completions
     * only when entered (DEFER_TASKRUN): after a wake-up from another ring, each is entered once for it.
     */
    private void reap() {
        Shard main = shards[0];
        main.ring.cq().drain(this::complete, Integer.MAX_VALUE);
        if (woken) {
            woken = false;
            for (Shard sh : shards) { // (the first too: the wait just made may have been another ring's)
                sh.ring.submitAndWait(0, -1);
            }
        }
        for (Shard sh : shards) {
            sh.ring.cq().drain(this::complete, Integer.MAX_VALUE);
        }
        for (Shard sh : shards) {
            sh.buffers.publish();
        }
    }

    private void complete(long userData, int res, int flags) {
        Conn c = s.all.isEmpty() ? null : s.all.get((int) (userData >>> 8));
        switch ((int) (userData & 0xff)) {
            case RECV -> received(c, res, flags);
            case SEND -> sent(c, res);
            case CONNECT -> {
                connecting--;
                if (res < 0 && connectFailure == null) {
                    connectFailure = new IOException("connection " + (c.id + 1) + " of " + gen.config.conns()
                        + " to " + gen.server + " failed: " + Errno.name(-res));
                }
            }
            case SETUP -> {
                if (res < 0 && connectFailure == null) {
                    connectFailure = new IOException("setting up connection " + (c.id + 1) + " of "
                        + gen.config.conns() + " in a direct descriptor failed: " + Errno.name(-res));
                }
            }
            case WAKE -> {
                wakeArmed = false;
                woken = true;
            }
            case CANCEL -> { }
            default -> throw new IllegalStateException("unexpected completion: user_data=" + userData);
        }
    }

    private void received(Conn c, int res, int flags) {
        if (!IoUringCqe.hasMore(flags)) {
            c.receiving = false;
        }
        BufferRing buffers = shard(c).buffers;
        if (closing) { // the run is over: give the buffer back, count nothing
            if (res > 0) {
                buffers.release(IoUringCqe.bufferId(flags), res, flags);
            }
            return;
        }
        if (res > 0) {
            int bid = IoUringCqe.bufferId(flags);
            long from = (long) bid * buffers.bufferSize() + buffers.dataOffset(bid);
            MemorySegment all = buffers.segment();
            int left = res;
            while (left > 0) {
                int n = Math.min(left, c.in.remaining());
                MemorySegment.copy(all, JAVA_BYTE, from, c.in.array(), c.in.position(), n);
                c.in.position(c.in.position() + n);
                from += n;
                left -= n;
                s.answers(c, now);
            }
            buffers.release(bid, res, flags);
            queue(c);
        } else if (res != -Errno.ENOBUFS) {
            s.lose(c); // the server closed the connection (0), or it failed
            return;
        }
        if (!c.receiving) {
            armRecv(c); // the ring ran dry (ENOBUFS) or the kernel ended the multishot: data is still waiting
        }
    }

    private void sent(Conn c, int res) {
        c.sending = false;
        if (closing) {
            return;
        }
        if (res < 0) {
            s.lose(c);
            return;
        }
        c.stagedSent += res;
        if (c.stagedSent < c.stagedLength) {
            submitStaged(c); // a short write: the rest of the staged bytes, from where it stopped
            return;
        }
        if (c.out.hasRemaining()) {
            queue(c);
        }
    }

    private void queue(Conn c) {
        if (c.dirty && !c.queued) {
            c.queued = true;
            toFlush.add(c);
        }
    }

    private void flushQueued() {
        List<Conn> list = toFlush;
        for (int i = 0; i < list.size(); i++) {
            Conn c = list.get(i);
            c.queued = false;
            flush(c);
        }
        list.clear();
    }

    /** Stages what {@code c} has to send and queues one SEND for it, unless one is in flight already. */
    private void flush(Conn c) {
        if (c.sending || c.lost) {
            return; // the completion comes back here
        }
        c.dirty = false;
        ByteBuffer out = c.out;
        int n = out.remaining();
        if (n == 0) {
            return;
        }
        if (c.staging == null || c.staging.byteSize() < n) {
            long size = Math.max(n, c.staging == null ? 0 : c.staging.byteSize() * 2);
            c.staging = arena.allocate(size, 64); // rare: the first send, or a larger backlog than ever
        }
        MemorySegment.copy(out.array(), out.position(), c.staging, JAVA_BYTE, 0, n);
        out.position(out.limit());
        c.stagedLength = n;
        c.stagedSent = 0;
        submitStaged(c);
    }

    private void submitStaged(Conn c) {
        c.sending = true;
        Shard sh = shard(c);
        named(sh, sh.sq.prepSend(c.fd, c.staging.address() + c.stagedSent, c.stagedLength - c.stagedSent,
            SocketConstants.MSG_NOSIGNAL, userData(c.id, SEND)), c);
    }

    /** One io_uring of the generator and the connections it carries (a range of them). */
    private static final class Shard {
        IoUring ring;
        SubmissionQueue sq;
        BufferRing buffers;
    }
}
