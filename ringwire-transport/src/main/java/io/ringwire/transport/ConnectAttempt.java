package io.ringwire.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import io.ringwire.uring.Errno;
import io.ringwire.uring.SockAddr;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

import static io.ringwire.uring.IoUringConstants.IORING_OP_CONNECT;

/**
 * A client stream channel's connect: one CONNECT SQE, submitted at once as connect(2) sends its SYN, the channel's
 * connect timeout, and the completion that makes the channel active or fails the promise. The channel holds it in
 * {@link AbstractRingwireStreamChannel#connecting} only while it lasts.
 *
 * <p>The promise stays cancellable, as Netty's epoll and io_uring transports keep it: the CONNECT in flight is an SQE,
 * and cancelling the promise closes the channel, which ends the SQE.
 */
final class ConnectAttempt {
    private final AbstractRingwireStreamChannel channel;
    private final ChannelPromise promise;
    private final SocketAddress remote;
    private Future<?> timeout;

    private ConnectAttempt(AbstractRingwireStreamChannel channel, ChannelPromise promise, SocketAddress remote) {
        this.channel = channel;
        this.promise = promise;
        this.remote = remote;
    }

    /**
     * Submits the CONNECT, makes the attempt the channel's, and arms its timeout. On the loop; the channel is open,
     * registered, not active and not connecting.
     *
     * @throws IOException if the submission queue is full and the kernel takes nothing
     */
    static void start(AbstractRingwireStreamChannel ch, SocketAddress remote, ChannelPromise promise)
        throws IOException {
        RingwireIoRegistration r = ch.registration;
        RingwireIoHandler h = r.handler();
        if (!r.reserveSqe()) {
            throw new IOException("cannot connect now: the io_uring submission queue is full and the kernel "
                + "took nothing (sqRefusals=" + h.counters().sqRefusals() + ")");
        }
        long sa = h.scratch().take(SockAddr.STORAGE_SIZE);
        MemorySegment seg = h.scratch().segment();
        int len = ch.writeRemoteAddress(remote, seg.asSlice(sa - seg.address(), SockAddr.STORAGE_SIZE));
        ch.socket.nameSlot(r, r.sq().prepConnect(ch.fd, sa, len, r.nextUserData(IORING_OP_CONNECT, 0)));
        ch.started(AbstractRingwireChannel.CONNECT);
        h.submitNow(); // the SYN leaves now, as connect(2)'s does, whatever the caller does next on the loop
        ConnectAttempt attempt = new ConnectAttempt(ch, promise, remote);
        ch.connecting = attempt;
        int timeoutMillis = ch.config.getConnectTimeoutMillis();
        if (timeoutMillis > 0) {
            attempt.timeout = ch.eventLoop().schedule(() -> attempt.timedOut(timeoutMillis), timeoutMillis,
                TimeUnit.MILLISECONDS);
        }
        promise.addListener(f -> {
            if (f.isCancelled()) {
                attempt.cancelTimeout();
                ch.connecting = null;
                attempt.closeChannel();
            }
        });
    }

    private void timedOut(int timeoutMillis) {
        if (channel.connecting == this && !promise.isDone() && promise.tryFailure(new ConnectTimeoutException(
            "connection timed out after " + timeoutMillis + " ms: " + remote))) {
            closeChannel();
        }
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    private void closeChannel() {
        Channel.Unsafe u = channel.unsafe();
        u.close(u.voidPromise());
    }

    /** The CONNECT's completion; the channel has let go of this attempt. */
    void complete(int res) {
        cancelTimeout();
        if (promise.isDone()) {
            return; // timed out or cancelled: already failed and closing
        }
        if (res == 0) {
            boolean wasActive = channel.active;
            channel.active = true;
            channel.resetLocalAddress();
            channel.cacheRemoteAddress(remote);
            boolean promiseSet = promise.trySuccess();
            if (!wasActive) {
                channel.pipeline().fireChannelActive();
            }
            if (!promiseSet) {
                closeChannel();
            } else {
                // autoRead off and no read(): the peer's close is still seen
                channel.streamUnsafe().watchForPeerCloseIfPaused();
            }
            return;
        }
        if (res == -Errno.ECANCELED && !channel.isOpen()) {
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        IOException missing = AbstractRingwireChannel.noSocketAt(res, remote);
        IOException e = missing != null ? missing : new ConnectException("connect failed: " + Errno.name(res)
            + " (" + Errno.description(res) + ")");
        channel.streamUnsafe().connectFailed(promise, e, remote);
        closeChannel();
    }
}
