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
 * Out of descriptors (EMFILE/ENFILE) it stops accepting and tries again after a pause, never in a loop. What TCP and
 * Unix domain servers share; each makes its own child channels.
 */
abstract class AbstractRingwireServerChannel extends AbstractRingwireChannel implements ServerChannel {
    /** Pause before accepting again after the process ran out of descriptors. */
    static final long ACCEPT_BACKOFF_MILLIS = 100;

    private boolean backingOff;
    private boolean acceptedInBatch;

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
        boolean multishot = config().isAutoRead();
        if (inFlight(READ_MULTISHOT | READ_SINGLE) || !multishot && !readPending) {
            return;
        }
        if (!r.reserveSqe()) {
            r.retryNextIteration(); // prepareBeforeEnter() comes back here
            return;
        }
        if (multishot) {
            r.sq().prepAcceptMultishot(fd, flags, r.nextUserData(IORING_OP_ACCEPT, MULTISHOT));
            started(READ_MULTISHOT);
        } else {
            r.sq().prepAccept(fd, 0, 0, flags, r.nextUserData(IORING_OP_ACCEPT, SINGLE));
            started(READ_SINGLE);
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
                accepted(res);
                return;
            }
            if (res == -Errno.ECANCELED || !isOpen()) {
                return;
            }
            if (res == -Errno.EMFILE || res == -Errno.ENFILE || res == -Errno.ENOBUFS || res == -Errno.ENOMEM) {
                backOff();
            } else if (!more && config().isAutoRead()) {
                registration.notifyAfterCompletions(); // re-arm once, after this batch
            }
            pipeline().fireExceptionCaught(new NativeIoException("accept", res));
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
            if (!config().isAutoRead()) {
                readPending = false;
            }
            acceptedInBatch = true;
            registration.notifyAfterCompletions();
            pipeline().fireChannelRead(child);
        }

        private void backOff() {
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
            if (isOpen() && (config().isAutoRead() || readPending)) {
                armAccept();
            }
        }
    }
}
