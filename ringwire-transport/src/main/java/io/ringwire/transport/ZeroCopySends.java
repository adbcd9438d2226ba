package io.ringwire.transport;

import io.netty.channel.ChannelOutboundBuffer;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.SocketConstants;
import io.ringwire.uring.SubmissionQueue;

import static io.ringwire.uring.IoUringConstants.IORING_OP_SENDMSG_ZC;
import static io.ringwire.uring.IoUringConstants.IORING_OP_SEND_ZC;

/**
 * A stream channel's zero-copy sends (SEND_ZC, SENDMSG_ZC; only TCP channels make them, from
 * {@link RingwireChannelOption#SEND_ZC_THRESHOLD} bytes): the messages each send whose notification has not come
 * reads from, retained until the kernel says it is done with their pages. Made at the channel's first zero-copy send.
 */
final class ZeroCopySends {
    /** Zero-copy sends awaiting their notification at most; a write beyond that goes with a copy. */
    static final int SLOTS = 16;

    /**
     * For measuring zero copy where the kernel copies anyway (loopback): keep it on after a copied notification
     * ({@code -Dringwire.sendZcKeepWhenCopied=true}; tests set it).
     */
    static boolean keepWhenCopied = Boolean.getBoolean("ringwire.sendZcKeepWhenCopied");

    private final AbstractRingwireStreamChannel channel;
    private final Object[][] held = new Object[SLOTS][];
    /** Sends awaiting their notification. */
    int pending;
    /** The kernel copied (loopback) or refused: this channel sends with a copy from now on. */
    boolean off;

    ZeroCopySends(AbstractRingwireStreamChannel channel) {
        this.channel = channel;
    }

    private int freeSlot() {
        for (int i = 0; i < SLOTS; i++) {
            if (held[i] == null) {
                return i;
            }
        }
        return -1;
    }

    private void release(int slot) {
        Object[] msgs = held[slot];
        if (msgs != null) {
            held[slot] = null;
            pending--;
            AbstractRingwireChannel.releaseAll(msgs);
        }
    }

    /**
     * One SEND_ZC (one iovec) or SENDMSG_ZC for what {@code g} gathered, the messages it covers retained until the
     * notification; the kernel is asked to report whether it copied after all (REPORT_USAGE). The SQE is reserved.
     */
    void send(RingwireIoRegistration r, ChannelOutboundBuffer in, WriteGather g, int iovecs) {
        int slot = freeSlot();
        held[slot] = AbstractRingwireChannel.retainFlushed(in, g.messages());
        pending++;
        SubmissionQueue q = r.sq();
        AbstractRingwireStreamChannel ch = channel;
        short report = (short) (IoUringConstants.IORING_SEND_ZC_REPORT_USAGE | TestHooks.zeroCopySqeFlags);
        StreamSocket s = ch.socket;
        if (iovecs == 1) {
            s.nameSlotOrFd(r, q.prepSendZc(ch.fd, g.firstAddress(), g.firstLength(), SocketConstants.MSG_NOSIGNAL,
                report, r.nextUserData(IORING_OP_SEND_ZC, slot)));
            ch.startedWrite(IORING_OP_SEND_ZC, slot);
        } else {
            s.nameSlotOrFd(r, q.prepSendmsgZc(ch.fd, g.msghdr(), SocketConstants.MSG_NOSIGNAL, report,
                r.nextUserData(IORING_OP_SENDMSG_ZC, slot)));
            ch.startedWrite(IORING_OP_SENDMSG_ZC, slot);
        }
        r.handler().counters().zeroCopySends++;
    }

    /**
     * A zero-copy send's CQEs: first its result (with F_MORE when a notification follows), handled as a SEND's
     * (the promises complete, the outbound buffer lets go; the retained messages stay); then the notification
     * (F_NOTIF), which releases them. A refusal sends the same bytes again with a copy.
     *
     * @return whether the caller completes the write as a SEND's with {@code res}
     */
    boolean complete(int res, int flags, int slot) {
        AbstractRingwireStreamChannel ch = channel;
        RingwireCounters c = ch.registration.handler().counters();
        if ((flags & IoUringConstants.IORING_CQE_F_NOTIF) != 0) {
            if ((res & IoUringConstants.IORING_NOTIF_USAGE_ZC_COPIED) != 0) {
                c.zeroCopyCopied++;
                if (!keepWhenCopied) {
                    off = true; // the kernel copies on this path anyway: zero copy only costs here
                }
            }
            release(slot);
            return false;
        }
        if (!IoUringCqe.hasMore(flags)) {
            release(slot); // no notification follows
        }
        if (res == -Errno.EOPNOTSUPP || res == -Errno.EINVAL || res == -Errno.ENOMEM) {
            // nothing was sent: the bytes are still the outbound buffer's, and go again with a copy
            c.zeroCopyRefused++;
            off = true;
            if (res == -Errno.ENOMEM) {
                ch.registration.handler().zeroCopyOutOfMemory();
            }
            ch.ended(AbstractRingwireChannel.WRITE);
            ch.releaseHeldForKernel();
            ChannelOutboundBuffer in = ch.unsafe().outboundBuffer();
            if (in != null && !in.isEmpty() && ch.isOpen()) {
                ch.doWrite(in);
            }
            return false;
        }
        return true;
    }
}
