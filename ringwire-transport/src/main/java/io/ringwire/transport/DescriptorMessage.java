package io.ringwire.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.unix.FileDescriptor;
import io.ringwire.uring.Libc;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.RawMemory;
import io.ringwire.uring.SocketConstants;

/**
 * The one-byte message that carries a file descriptor over a Unix domain stream socket (SCM_RIGHTS), as Netty's
 * native domain channels send and receive it: a {@code struct msghdr}, its one {@code iovec}, the byte, and a control
 * buffer of {@code CMSG_SPACE(sizeof(int))} bytes, laid out in one piece of native memory. The kernel reads it
 * (SENDMSG) or writes it (RECVMSG) until the op's completion, so its owner keeps it until then. Aligned to 8 bytes,
 * that control buffer has room for two descriptors: a peer that passes two in one message gets both installed in
 * this process (the kernel closes any past those), and the receiver must close what it does not keep.
 *
 * <pre>
 *   0  msghdr: name 0, namelen 0, iov -> 56, iovlen 1, control -> 80, controllen 24, flags
 *  56  iovec:  base -> 72, len 1
 *  72  the byte (0)
 *  80  cmsghdr: len 20, level SOL_SOCKET, type SCM_RIGHTS, int fd   (CMSG_SPACE(sizeof(int)) = 24)
 * </pre>
 */
final class DescriptorMessage {
    private DescriptorMessage() { }

    static final int SIZE = 104;
    /** Bytes to allocate so that an 8-byte-aligned message fits anywhere in them. */
    static final int ALLOCATION = SIZE + 8;
    private static final int CONTROLLEN = 40;
    private static final int FLAGS = 48;
    private static final int IOV = 56;
    private static final int BYTE = 72;
    private static final int CONTROL = 80;
    private static final int CONTROL_SPACE = 24;
    private static final int CONTROL_LEN = 20;
    /** {@code CMSG_LEN(0)}: the cmsghdr before its descriptors. */
    private static final int CONTROL_HEADER = 16;
    /** Descriptors the control buffer has room for (the kernel installs this many at most, and closes the rest). */
    static final int MAX_RECEIVED = (CONTROL_SPACE - CONTROL_HEADER) / Integer.BYTES;
    private static final int[] NONE = new int[0];

    /**
     * Lays a message out at the first 8-byte boundary from {@code address}.
     *
     * @param address the start of at least {@link #ALLOCATION} bytes
     * @param fd      the descriptor to send, or -1 for room to receive one
     * @return the msghdr's address
     */
    static long layOut(long address, int fd) {
        long m = at(address);
        for (int i = 0; i < SIZE; i += 8) {
            RawMemory.putLong(m + i, 0L);
        }
        RawMemory.putLong(m + 16, m + IOV);
        RawMemory.putLong(m + 24, 1);
        RawMemory.putLong(m + 32, m + CONTROL);
        RawMemory.putLong(m + CONTROLLEN, CONTROL_SPACE);
        RawMemory.putLong(m + IOV, m + BYTE);
        RawMemory.putLong(m + IOV + 8, 1);
        if (fd >= 0) {
            RawMemory.putLong(m + CONTROL, CONTROL_LEN);
            RawMemory.putInt(m + CONTROL + 8, SocketConstants.SOL_SOCKET);
            RawMemory.putInt(m + CONTROL + 12, SocketConstants.SCM_RIGHTS);
            RawMemory.putInt(m + CONTROL + 16, fd);
        }
        return m;
    }

    /**
     * @param alloc the channel's allocator
     * @return a buffer for one message, or null (nothing held) if the allocator's direct buffers have no single
     *         native address
     */
    static ByteBuf allocate(ByteBufAllocator alloc) {
        ByteBuf buf = alloc.directBuffer(ALLOCATION);
        if (msghdr(buf) == 0) {
            buf.release();
            return null;
        }
        return buf;
    }

    /** @return the address of the msghdr in {@code buf} (from {@link #allocate}), 0 if it has none */
    static long msghdr(ByteBuf buf) {
        return at(AbstractRingwireChannel.nativeAddress(buf, buf.writerIndex(), ALLOCATION));
    }

    /** @return the msghdr's address in the allocation at {@code address} */
    private static long at(long address) {
        return (address + 7) & ~7L;
    }

    /**
     * @param msghdr a message a RECVMSG completed into (laid out by {@link #layOut} with no descriptor: the kernel
     *               wrote the cmsghdr, if any descriptor came)
     * @return the descriptors it brought, now this process's: none if the byte came alone, one as Netty's native
     *         channels send it, at most {@link #MAX_RECEIVED} (the control buffer's room; the cmsghdr's length says
     *         how many, whether or not the kernel writes the msghdr's flags back)
     */
    static int[] receivedFds(long msghdr) {
        long len = RawMemory.getLong(msghdr + CONTROL);
        if (RawMemory.getLong(msghdr + CONTROLLEN) < CONTROL_LEN || len < CONTROL_LEN
            || RawMemory.getInt(msghdr + CONTROL + 8) != SocketConstants.SOL_SOCKET
            || RawMemory.getInt(msghdr + CONTROL + 12) != SocketConstants.SCM_RIGHTS) {
            return NONE;
        }
        int n = (int) Math.min((len - CONTROL_HEADER) / Integer.BYTES, MAX_RECEIVED);
        int[] fds = new int[n];
        for (int i = 0; i < n; i++) {
            fds[i] = RawMemory.getInt(msghdr + CONTROL + CONTROL_HEADER + (long) i * Integer.BYTES);
        }
        return fds;
    }

    /** @return whether the kernel says it dropped control data (more descriptors came than there was room for) */
    static boolean truncated(long msghdr) {
        return (RawMemory.getInt(msghdr + FLAGS) & SocketConstants.MSG_CTRUNC) != 0;
    }

    /**
     * A descriptor received from the peer, handed to the pipeline as Netty's native channels hand it out. Only its
     * number, {@code isOpen()} and {@code close()} are Ringwire's: Netty's own methods are its JNI, which Ringwire
     * does not load. The application owns it and closes it.
     */
    static final class Received extends FileDescriptor {
        Received(int fd) {
            super(fd);
        }

        @Override
        public void close() throws NativeIoException {
            if (markClosed()) {
                NativeIoException.check(Libc.close(intValue()), "close");
            }
        }
    }
}
