package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.unix.FileDescriptor;
import io.ringwire.uring.Errno;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SocketConstants;

import static io.ringwire.uring.IoUringConstants.IORING_OP_RECVMSG;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG;

/**
 * A Unix domain stream channel's descriptor passing (SCM_RIGHTS): the one-byte messages in flight that pass a
 * descriptor or take one, as Netty's native domain channels send and read them. Made at the channel's first
 * descriptor passed: most connections never pass one, and an idle connection should not carry its fields.
 */
final class DescriptorPassing {
    /** user_data data of the SENDMSG that passes a descriptor (a gathered write's SENDMSG has 0). */
    static final int DESCRIPTOR = 1;

    private final AbstractRingwireStreamChannel channel;
    /** The message of the RECVMSG in flight that takes a descriptor; the channel owns it until the CQE. */
    private ByteBuf recv;
    /** The message of the SENDMSG in flight that passes one; the channel owns it until the CQE. */
    private ByteBuf send;
    /** An fd installed to pass a direct descriptor's socket (it has none), closed when that SENDMSG ends. */
    private int installed = -1;
    /**
     * The descriptor being passed whose socket is a direct descriptor in another loop's table: that loop installs
     * an fd of it ({@link #fetched} once it has come); null when none is asked for.
     */
    private FileDescriptor fetching;
    /** The fd another loop installed for {@link #fetching}, not yet passed; -1 for none. */
    private int fetched = -1;

    DescriptorPassing(AbstractRingwireStreamChannel channel) {
        this.channel = channel;
    }

    /** @return whether the receive in flight is a RECVMSG that takes a descriptor */
    boolean receiving() {
        return recv != null;
    }

    /** The channel closed: an fd another loop installed for a passing that will not happen now is closed. */
    void closed() {
        if (fetched >= 0) {
            Libc.close(fetched);
            fetched = -1;
        }
    }

    /**
     * One RECVMSG of the one-byte message that carries a descriptor, single-shot: the peer's descriptors come one per
     * completion, as Netty's native domain channels read them. The SQE is reserved.
     */
    void armRecv(RingwireIoRegistration r) {
        AbstractRingwireStreamChannel ch = channel;
        ByteBuf buf = DescriptorMessage.allocate(ch.config.getAllocator());
        if (buf == null) {
            throw new IllegalStateException("the channel's allocator gives direct buffers without a single native "
                + "address, to receive a descriptor into: " + ch.config.getAllocator());
        }
        long msghdr = DescriptorMessage.layOut(DescriptorMessage.msghdr(buf), -1);
        recv = buf;
        // named by its fd, not a fixed-file slot: passing descriptors is rare, and takes no slot (but a direct
        // descriptor has nothing else)
        ch.socket.nameSlot(r, r.sq().prepRecvmsg(ch.fd, msghdr, SocketConstants.MSG_CMSG_CLOEXEC,
            r.nextUserData(IORING_OP_RECVMSG, AbstractRingwireChannel.SINGLE)));
        ch.started(AbstractRingwireChannel.READ_SINGLE);
    }

    /**
     * One SENDMSG of the one-byte message that passes {@code passed} (SCM_RIGHTS), as Netty's native domain
     * channels send it; the descriptor stays the application's. The SQE is reserved.
     */
    void send(RingwireIoRegistration r, ChannelOutboundBuffer in, FileDescriptor passed) {
        AbstractRingwireStreamChannel ch = channel;
        if (!passed.isOpen()) {
            // bad input: that write fails, the connection and the writes after it go on
            in.remove(new IllegalArgumentException(passed + " is closed: there is no descriptor to pass"));
            if (!in.isEmpty()) {
                ch.doWrite(in);
            }
            return;
        }
        int toPass = passed.intValue();
        AbstractRingwireStreamChannel owner =
            (AbstractRingwireStreamChannel) AbstractRingwireChannel.directDescriptorOwner(passed);
        boolean isFetched = false;
        if (owner != null) {
            if (fetching == passed) {
                if (fetched < 0) {
                    return; // its fd is on its way from the loop whose table holds it
                }
                isFetched = true;
            } else {
                RingwireIoHandler home = owner.socket.homeForPassing();
                if (home != null && !home.inLoop()) {
                    fetchDescriptor(owner, home, passed);
                    return;
                }
            }
        }
        ByteBuf buf = DescriptorMessage.allocate(ch.config.getAllocator());
        if (buf == null) {
            if (isFetched) {
                Libc.close(fetched);
                fetched = -1;
                fetching = null;
            }
            ch.streamUnsafe().writeFailed(new IllegalStateException("the channel's allocator gives direct buffers "
                + "without a single native address, to send a descriptor from: " + ch.config.getAllocator()));
            return;
        }
        if (owner != null) {
            // a channel on a direct descriptor has no fd: one is installed for the passing (the peer gets a
            // descriptor of the same socket), and closed once the SENDMSG has ended; a client that has joined
            // no loop yet has no socket at all: it gets one now, with an fd of its own, as without direct ones
            try {
                if (isFetched) {
                    toPass = fetched;
                    fetched = -1;
                    fetching = null;
                    installed = toPass;
                } else if (owner.socket.toBeMade() && !owner.isRegistered()) {
                    if (!owner.socket.makeSocket(null)) {
                        throw new NativeIoException("passing " + owner + ", which joined its loop meanwhile",
                            -Errno.EAGAIN);
                    }
                    toPass = owner.fd;
                } else {
                    toPass = owner.socket.installFd();
                    installed = toPass;
                }
            } catch (NativeIoException | RuntimeException e) {
                buf.release();
                in.remove(e);
                if (!in.isEmpty()) {
                    ch.doWrite(in);
                }
                return;
            }
        }
        send = buf;
        long msghdr = DescriptorMessage.layOut(DescriptorMessage.msghdr(buf), toPass);
        ch.socket.nameSlot(r, r.sq().prepSendmsg(ch.fd, msghdr, SocketConstants.MSG_NOSIGNAL,
            r.nextUserData(IORING_OP_SENDMSG, DESCRIPTOR)));
        ch.startedWrite(IORING_OP_SENDMSG, DESCRIPTOR);
        r.handler().counters().writes++;
    }

    /**
     * Asks the loop whose table holds {@code owner}'s socket for an fd of it, to pass: a task of that loop, which
     * hands the fd back to this channel's loop in a task of its own ({@link #descriptorFetched}), so that
     * neither loop waits for the other. The write waits at the head of the outbound buffer meanwhile.
     */
    private void fetchDescriptor(AbstractRingwireStreamChannel owner, RingwireIoHandler home,
                                 FileDescriptor passed) {
        fetching = passed;
        try {
            home.executor().execute(() -> {
                int fd = -1;
                Throwable error = null;
                try {
                    fd = owner.socket.installFd();
                } catch (NativeIoException | RuntimeException e) {
                    error = e;
                }
                descriptorFetched(passed, fd, error);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            descriptorFetched(passed, -1, new NativeIoException("passing a direct descriptor whose loop has "
                + "ended", -Errno.EBADF));
        }
    }

    /**
     * The fd {@link #fetchDescriptor} asked for (or why there is none) comes to this channel's loop: the passing
     * goes on with it. An fd that is no longer wanted (the channel closed, the write failed) is closed.
     */
    private void descriptorFetched(FileDescriptor passed, int installed, Throwable error) {
        AbstractRingwireStreamChannel ch = channel;
        try {
            ch.eventLoop().execute(() -> {
                ChannelOutboundBuffer in = ch.unsafe().outboundBuffer();
                if (fetching != passed || !ch.isOpen() || in == null || in.current() != passed) {
                    if (installed >= 0) {
                        Libc.close(installed);
                    }
                    if (fetching == passed) {
                        fetching = null;
                    }
                    return;
                }
                if (error != null) {
                    fetching = null;
                    in.remove(error); // that write fails; the connection and the writes after it go on
                    if (!in.isEmpty()) {
                        ch.doWrite(in);
                    }
                    return;
                }
                fetched = installed;
                ch.doWrite(in);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            if (installed >= 0) {
                Libc.close(installed); // this channel's loop has ended
            }
        }
    }

    /** The SENDMSG that passed a descriptor completed: the next write follows, or the error is the write's. */
    void sendComplete(int res) {
        AbstractRingwireStreamChannel ch = channel;
        ch.ended(AbstractRingwireChannel.WRITE);
        ch.releaseHeldForKernel(); // a close while it was in flight held the flushed messages after it
        send.release();
        send = null;
        if (installed >= 0) {
            Libc.close(installed);
            installed = -1;
        }
        ChannelOutboundBuffer in = ch.unsafe().outboundBuffer();
        if (res > 0 && in != null) {
            in.remove(); // the descriptor is the peer's too now
            if (!in.isEmpty()) {
                ch.doWrite(in);
            }
        } else if (res == 0 && in != null) {
            ch.doWrite(in); // nothing taken: again
        } else if (res < 0 && res != -Errno.ECANCELED && in != null) {
            ch.streamUnsafe().writeFailed(new NativeIoException("sendmsg(SCM_RIGHTS)", res));
        }
    }

    /** A descriptor the peer passed came (or its EOF, or an error): it goes up the pipeline. */
    void recvComplete(int res, int flags) {
        AbstractRingwireStreamChannel ch = channel;
        AbstractRingwireStreamChannel.StreamUnsafe u = ch.streamUnsafe();
        ch.readCompleted(AbstractRingwireChannel.SINGLE, flags);
        ByteBuf buf = recv;
        recv = null;
        RingwireIoRegistration r = ch.registration;
        try {
            if (res > 0) {
                long msghdr = DescriptorMessage.msghdr(buf);
                int[] received = DescriptorMessage.receivedFds(msghdr);
                boolean truncated = DescriptorMessage.truncated(msghdr);
                if (received.length > 1 || truncated) {
                    // several descriptors in one message: the control buffer has room for two, which the kernel
                    // installed in this process (it closed any more). Every one is closed and the read fails,
                    // as with Netty's epoll (EINVAL; EMSGSIZE when the kernel says it truncated): kept, or left
                    // open, a peer passing them in pairs would fill this process's table. The connection stays,
                    // and the next message is read
                    for (int fd : received) {
                        Libc.close(fd);
                    }
                    if (ch.isOpen()) {
                        ch.pipeline().fireExceptionCaught(new NativeIoException(truncated
                            ? "recvmsg(SCM_RIGHTS) of more descriptors in one message than the "
                                + DescriptorMessage.MAX_RECEIVED + " that fit"
                            : "recvmsg(SCM_RIGHTS) of " + received.length + " descriptors in one message",
                            truncated ? Errno.EMSGSIZE : Errno.EINVAL));
                    }
                } else if (received.length == 1 && ch.isOpen()) {
                    RecvByteBufAllocator.ExtendedHandle handle = u.batchHandle();
                    u.countRead(handle, 1);
                    if (!ch.config.isAutoRead() && !ch.drainingToEof) {
                        ch.readPending = false;
                    }
                    ch.pipeline().fireChannelRead(new DescriptorMessage.Received(received[0]));
                } else if (received.length == 1) {
                    Libc.close(received[0]); // the channel closed while it came: nobody to own it
                } // else a byte without a descriptor: consumed, as Netty's native channels do
            } else if (res == 0) {
                ch.eofSeen = true;
            } else if (res != -Errno.ECANCELED) {
                ch.readError = new NativeIoException("recvmsg(SCM_RIGHTS)", res);
            }
        } finally {
            buf.release();
        }
        ch.recvNeedsRearm = true;
        u.readDone(r, true);
    }
}
