package io.ringwire.transport;

import io.netty.channel.ChannelId;

import java.io.Serial;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Ringwire channel's {@link ChannelId}: a sequence number from this JVM's counter under a prefix drawn once per JVM
 * (the process id and 64 random bits), so ids are unique within the JVM and, with the prefix, across JVMs.
 *
 * <p>Why not Netty's {@code DefaultChannelId}: it keeps process id, sequence, time, random bits, hash code and two
 * cached texts in fields of its own, 48 bytes per channel (Netty 4.2.18); this is 24 (a long and the shared prefix),
 * and a server holding 10,000 idle connections pays it per connection. The texts keep Netty's shapes:
 * {@link #asShortText()} is 8 hexadecimal digits (the sequence's low 32 bits: unique for the JVM's first 2^32
 * channels, where Netty's are random), {@link #asLongText()} the prefix and the 16-digit sequence.
 */
final class RingwireChannelId implements ChannelId {
    @Serial
    private static final long serialVersionUID = 1L;

    private static final AtomicLong NEXT = new AtomicLong();
    private static final String PREFIX = String.format(Locale.ROOT, "%08x-%016x", ProcessHandle.current().pid(),
        new SplittableRandom().nextLong());

    /** The JVM's prefix: the same instance for every id made here, another string for one read from elsewhere. */
    private final String prefix;
    private final long sequence;

    private RingwireChannelId(String prefix, long sequence) {
        this.prefix = prefix;
        this.sequence = sequence;
    }

    /** @return a new id, never equal to one made before in this JVM */
    static RingwireChannelId next() {
        return new RingwireChannelId(PREFIX, NEXT.incrementAndGet());
    }

    @Override
    public String asShortText() {
        String hex = Integer.toHexString((int) sequence);
        return "00000000".substring(hex.length()) + hex;
    }

    @Override
    public String asLongText() {
        return String.format(Locale.ROOT, "%s-%016x", prefix, sequence);
    }

    @Override
    public int compareTo(ChannelId o) {
        if (o instanceof RingwireChannelId other) {
            int c = prefix.compareTo(other.prefix);
            return c != 0 ? c : Long.compare(sequence, other.sequence);
        }
        return asLongText().compareTo(o.asLongText());
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RingwireChannelId other && sequence == other.sequence
            && prefix.equals(other.prefix);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sequence * 0x9E3779B97F4A7C15L); // consecutive ids spread over a hash table's buckets
    }

    @Override
    public String toString() {
        return asShortText();
    }
}
