package io.ringwire.transport;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A datagram was bigger than the room the receive had for it, and the kernel cut it (MSG_TRUNC). It is dropped, not
 * delivered cut; this exception says how big it was, so that the receive size can be raised: the channel's
 * {@link io.netty.channel.RecvByteBufAllocator} (a {@code FixedRecvByteBufAllocator} at least that large), or
 * {@link RingwireIoHandlerConfig#bufferSize()} for datagrams received through the loop's buffer ring.
 */
public final class DatagramTruncatedException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The datagram's full length. */
    private final int length;
    /** Who sent it (not serialized). */
    private final transient SocketAddress sender;

    DatagramTruncatedException(int length, int room, SocketAddress sender) {
        super("a datagram of " + length + " bytes from " + sender + " was cut to " + room + " bytes and dropped: "
            + "give the channel a RecvByteBufAllocator of at least " + length + " bytes");
        this.length = length;
        this.sender = sender;
    }

    /** @return the datagram's full length */
    public int length() {
        return length;
    }

    /** @return who sent it, if the kernel said */
    public SocketAddress sender() {
        return sender;
    }
}
