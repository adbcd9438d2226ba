package io.ringwire.transport;

import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ServerChannel;
import io.ringwire.uring.Errno;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.Sockets;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

import static io.ringwire.uring.IoUringConstants.IORING_OP_ACCEPT;

/**
 * A listening socket whose connections arrive through one multishot ACCEPT [5.19]: one SQE, a CQE per new
 * connection. With {@code autoRead} off, each {@code read()} accepts one connection with a single-shot ACCEPT.
 * Out of descriptors (EMFILE/ENFILE) it stops accepting and tries again after a pause, never in a loop. On a loop with
 * {@link RingwireIoHandlerConfig#directDescriptors() direct descriptors} the kernel accepts each connection into a
 * free slot of the loop's fixed-file table (IORING_FILE_INDEX_ALLOC) and no fd is made; a full table is a pause too.
 * What TCP and Unix domain servers share; each makes its own child channels.
 */
abstract class AbstractRingwireServerChannel extends AbstractRingwireChannel implements ServerChannel {
    /** Pause before accepting again after the process ran out of descriptors. */
    static final long ACCEPT_BACKOFF_MILLIS = 100;

    private boolean backingOff;
    private boolean acceptedInBatch;
    /** The armed ACCEPT puts connections in direct descriptors. */
    private boolean acceptingDirect;
    /** The listening socket was made ready for direct descriptors ({@link #prepareForDirectChildren()}). */
    private boolean readyForDirect;
    private static volatile boolean tableFullLogged;

    AbstractRingwireServerChannel(int fd) {
        super(null, fd, false);
    }

    /** @return the accept queue length to listen with */
    abstract int backlog();

    /**
     * @param childFd an accepted connection
     * @return its channel, which owns the fd from now on
     * @throws Exception if it cannot be made (the fd is then closed by the caller)
     */
    abstract AbstractRingwireChannel newChildChannel(int childFd) throws Exception;

    /**
     * @param slot a connection accepted into a direct descriptor: its slot in {@code home}'s fixed-file table
     * @return its channel, which owns the slot from now on
     * @throws Exception if it cannot be made (the slot is then emptied by the caller)
     */
    abstract AbstractRingwireChannel newDirectChildChannel(int slot, RingwireIoHandler home) throws Exception;

    /**
     * Before the first connection is accepted into a direct descriptor: options the connections inherit, set once on
     * the listening socket instead of on each (TCP_NODELAY for TCP), so a connection costs no call on its slot.
     */
    void prepareForDirectChildren() throws Exception {
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return null;
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        super.doBind(localAddress);
        RingwireIoRegistration r = registration;
        if (r != null && r.handler().directDescriptors() && !readyForDirect) {
            // before listen: a connection the kernel completes before the options are on the listener lacks them
            prepareForDirectChildren();
            readyForDirect = true;
        }
        Sockets.listen(fd, backlog());
        active = true;
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        armAccept();
    }

    private void armAccept() {
        RingwireIoRegistration r = registration;
        if (!active || backingOff || r == null || !r.isValid()) {
            return;
        }
        int flags = SocketConstants.SOCK_NONBLOCK | SocketConstants.SOCK_CLOEXEC;
        boolean autoRead = config().isAutoRead();
        if (inFlight(READ_MULTISHOT | READ_SINGLE) || !autoRead && !readPending) {
            return;
        }
        RingwireIoHandler h = r.handler();
        boolean direct = h.directDescriptors();
        if (direct && !readyDirect(h)) {
            return; // backing off: the table is full, or the listener could not be made ready
        }
        // near a full table, one connection at a time: a multishot ACCEPT takes every connection waiting at once,
        // and the one that finds no slot is reset
        boolean multishot = autoRead && (!direct || roomForABurst(h));
        if (!r.reserveSqe()) {
            r.retryNextIteration(); // prepareBeforeEnter() comes back here
            return;
        }
        acceptingDirect = direct;
        if (direct) {
            flags = SocketConstants.SOCK_NONBLOCK; // a slot has no fd to close on exec (CLOEXEC: EINVAL)
        }
        if (multishot) {
            long userData = r.nextUserData(IORING_OP_ACCEPT, MULTISHOT);
            if (direct) {
                r.sq().prepAcceptMultishotDirect(fd, flags, userData);
            } else {
                r.sq().prepAcceptMultishot(fd, flags, userData);
            }
            started(READ_MULTISHOT);
        } else {
            long userData = r.nextUserData(IORING_OP_ACCEPT, SINGLE);
            if (direct) {
                r.sq().prepAcceptDirect(fd, flags, userData);
            } else {
                r.sq().prepAccept(fd, 0, 0, flags, userData);
            }
            started(READ_SINGLE);
        }
    }

    /**
     * @return whether to accept into direct descriptors now: the listener is ready for them, and the loop's table has
     *         a free slot (else it backs off, as when out of descriptors)
     */
    private boolean readyDirect(RingwireIoHandler h) {
        if (!readyForDirect) {
            try {
                prepareForDirectChildren();
                readyForDirect = true;
            } catch (Exception e) {
                pipeline().fireExceptionCaught(e);
                return false;
            }
        }
        RingwireCounters c = h.counters();
        if (c.fixedFiles() < c.fixedFileSlots()) {
            return true;
        }
        tableFull(h);
        ((ServerUnsafe) unsafe()).backOff();
        return false;
    }

    /**
     * @return whether the loop's table has room for every connection the accept queue can hold, and some for those
     *         moving to other loops meanwhile: then a multishot ACCEPT cannot find it full; and whether the loop's
     *         completion queue holds such a burst with the completions of two synchronous calls per connection (its
     *         first options, on its slot), handed out in one batch: a call whose completion finds the queue full
     *         fails, and so would the registration of the connection it was for
     */
    private boolean roomForABurst(RingwireIoHandler h) {
        RingwireCounters c = h.counters();
        int burst = Math.min(backlog(), io.netty.util.NetUtil.SOMAXCONN);
        return c.fixedFileSlots() - c.fixedFiles() > burst + 64 && h.cqEntries() >= 3 * burst;
    }

    /** Says once per process, at warn level, that a loop's table is full, and what to do. */
    private void tableFull(RingwireIoHandler h) {
        if (!tableFullLogged) {
            tableFullLogged = true;
            logger.warn("{}: the fixed-file table of {} is full ({} slots, the open-file limit): accepting pauses "
                + "and resumes as connections close. Each loop holds up to the open-file limit in direct "
                + "descriptors; more event loops hold more. Said once.", this, h.executor(),
                h.counters().fixedFileSlots());
        }
    }

    @Override
    byte readOpcode() {
        return IORING_OP_ACCEPT;
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        throw new UnsupportedOperationException("a server socket does not write");
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        throw new UnsupportedOperationException("a server socket does not write");
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    private final class ServerUnsafe extends RingwireUnsafe {
        @Override
        public void connect(SocketAddress remote, SocketAddress local, io.netty.channel.ChannelPromise promise) {
            promise.setFailure(new UnsupportedOperationException("a server socket does not connect"));
        }

        @Override
        public void complete(byte opcode, int res, int flags, int data) {
            if (opcode != IORING_OP_ACCEPT) {
                return; // our own ASYNC_CANCELs
            }
            boolean more = !readCompleted(data, flags);
            if (res >= 0) {
                if (acceptingDirect) {
                    acceptedDirect(res);
                } else {
                    accepted(res);
                }
                return;
            }
            if (res == -Errno.ECANCELED && isOpen() && !more && registration.isValid()) {
                registration.notifyAfterCompletions(); // armed again there, if reading (or back off, if full)
            }
            if (res == -Errno.ECANCELED || !isOpen()) {
                return;
            }
            if (res == -Errno.EMFILE || res == -Errno.ENFILE || res == -Errno.ENOBUFS || res == -Errno.ENOMEM) {
                backOff();
            } else if (!more && config().isAutoRead()) {
                registration.notifyAfterCompletions(); // re-arm once, after this batch
            }
            if (res == -Errno.ENFILE && acceptingDirect) {
                RingwireIoHandler h = registration.handler();
                tableFull(h);
                // the kernel accepted the connection and found no slot for it: that one is reset
                pipeline().fireExceptionCaught(new NativeIoException("accept into a direct descriptor: the "
                    + "fixed-file table of " + h.executor() + " is full (" + h.counters().fixedFileSlots()
                    + " slots, the open-file limit; the connection that found it full is reset)", res));
                return;
            }
            pipeline().fireExceptionCaught(new NativeIoException("accept", res));
        }

        private void acceptedDirect(int slot) {
            RingwireIoHandler h = registration.handler();
            h.counters().accepts++;
            h.fileTable().slotTaken();
            AbstractRingwireChannel child;
            try {
                child = newDirectChildChannel(slot, h);
            } catch (Throwable t) {
                h.fileTable().closeSlot(slot);
                pipeline().fireExceptionCaught(t);
                return;
            }
            handOver(child);
        }

        private void accepted(int childFd) {
            RingwireIoHandler h = registration.handler();
            h.counters().accepts++;
            AbstractRingwireChannel child;
            try {
                child = newChildChannel(childFd);
            } catch (Throwable t) {
                io.ringwire.uring.Libc.close(childFd);
                pipeline().fireExceptionCaught(t);
                return;
            }
            handOver(child);
        }

        /** An accepted connection goes up the pipeline (to ServerBootstrap's acceptor, which registers it). */
        private void handOver(AbstractRingwireChannel child) {
            if (!config().isAutoRead()) {
                readPending = false;
            }
            acceptedInBatch = true;
            registration.notifyAfterCompletions();
            pipeline().fireChannelRead(child);
        }

        void backOff() {
            registration.handler().counters().acceptBackoffs++;
            if (inFlight(READ_MULTISHOT)) {
                cancel(registration, IORING_OP_ACCEPT, MULTISHOT);
            }
            if (backingOff) {
                return;
            }
            backingOff = true;
            eventLoop().schedule(() -> {
                backingOff = false;
                if (isOpen() && (config().isAutoRead() || readPending)) {
                    armAccept();
                }
            }, ACCEPT_BACKOFF_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void prepareBeforeEnter() {
            if (isOpen() && (config().isAutoRead() || readPending)) {
                armAccept(); // a retry after the kernel refused an SQE
            }
        }

        @Override
        public void afterCompletions() {
            ChannelPipeline p = pipeline();
            if (acceptedInBatch) {
                acceptedInBatch = false;
                p.fireChannelReadComplete();
            }
            if (acceptingDirect && inFlight(READ_MULTISHOT) && !roomForABurst(registration.handler())) {
                cancel(registration, IORING_OP_ACCEPT, MULTISHOT); // one at a time from here (its end re-arms)
            }
            if (isOpen() && (config().isAutoRead() || readPending)) {
                armAccept();
            }
        }
    }
}
