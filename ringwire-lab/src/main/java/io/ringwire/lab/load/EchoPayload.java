package io.ringwire.lab.load;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The messages of the echo generators that check every byte themselves (tls-echo, quic, udp-echo, and their loads in
 * the soak): a message of {@code size} bytes is its sequence number, its send time, then bytes where byte {@code i} is
 * {@code (byte) (seq + i)}. Written and checked in bulk, as a window into one pattern: a loop per byte made the
 * generator's own cost per message (and with it the rate the server saw) depend on how the JIT happened to compile
 * that loop, by up to 40 % from one run to the next. One instance per generator thread (it keeps a scratch array).
 */
final class EchoPayload {
    static final int HEADER = 16;

    private final int size;
    /** {@code pattern[j] == (byte) j}: the payload of {@code seq} starts at {@code (seq + HEADER) & 0xFF}. */
    private final byte[] pattern;
    private final byte[] scratch;

    /**
     * @param size bytes per message, header included
     * @throws IllegalArgumentException if {@code size < HEADER}
     */
    EchoPayload(int size) {
        if (size < HEADER) {
            throw new IllegalArgumentException("a message has at least " + HEADER + " bytes: " + size);
        }
        this.size = size;
        this.pattern = new byte[256 + size - HEADER];
        for (int j = 0; j < pattern.length; j++) {
            pattern[j] = (byte) j;
        }
        this.scratch = new byte[size - HEADER];
    }

    private static int start(long seq) {
        return (int) ((seq + HEADER) & 0xFF);
    }

    /** Appends message {@code seq}, sent at {@code now}, to {@code out}. */
    void write(ByteBuf out, long seq, long now) {
        out.writeLong(seq).writeLong(now).writeBytes(pattern, start(seq), size - HEADER);
    }

    /** Puts message {@code seq}, sent at {@code now}, into {@code out} at its position. */
    void write(ByteBuffer out, long seq, long now) {
        out.putLong(seq).putLong(now).put(pattern, start(seq), size - HEADER);
    }

    /**
     * @param in  holds a message at {@code at} (header included), {@code n} bytes of it ({@code n ≤ size})
     * @param seq the sequence number its header carries
     * @return how many of its payload bytes differ from what {@code seq}'s message holds
     */
    int mismatches(ByteBuf in, int at, int n, long seq) {
        int len = n - HEADER;
        if (len <= 0) {
            return 0;
        }
        in.getBytes(at + HEADER, scratch, 0, len);
        return mismatches(len, seq);
    }

    /** As {@link #mismatches(ByteBuf, int, int, long)}, for a message at index 0 of {@code in}. */
    int mismatches(ByteBuffer in, int n, long seq) {
        int len = n - HEADER;
        if (len <= 0) {
            return 0;
        }
        in.get(HEADER, scratch, 0, len);
        return mismatches(len, seq);
    }

    private int mismatches(int len, long seq) {
        int from = start(seq);
        int i = Arrays.mismatch(scratch, 0, len, pattern, from, from + len);
        if (i < 0) {
            return 0;
        }
        int wrong = 0;
        for (; i < len; i++) { // only when something is wrong: count the bytes, as the checks always have
            if (scratch[i] != pattern[from + i]) {
                wrong++;
            }
        }
        return wrong;
    }
}
