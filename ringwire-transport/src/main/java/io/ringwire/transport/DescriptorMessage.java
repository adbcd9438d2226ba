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
 * buffer with room for one descriptor, laid out in one piece of native memory. The kernel reads it (SENDMSG) or
 * writes it (RECVMSG) until the op's completion, so its owner keeps it until then.
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
     * @param msghdr a message a RECVMSG completed into (the kernel wrote back its control length and flags)
     * @return the descriptor it brought, or -1 if none came with the byte
     */
    static int receivedFd(long msghdr) {
        if (RawMemory.getLong(msghdr + CONTROLLEN) < CONTROL_LEN || RawMemory.getLong(msghdr + CONTROL) < CONTROL_LEN
            || RawMemory.getInt(msghdr + CONTROL + 8) != SocketConstants.SOL_SOCKET
            || RawMemory.getInt(msghdr + CONTROL + 12) != SocketConstants.SCM_RIGHTS) {
            return -1;
        }
        return RawMemory.getInt(msghdr + CONTROL + 16);
    }

    /** @return whether the kernel dropped control data: more descriptors came than the room for one */
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
