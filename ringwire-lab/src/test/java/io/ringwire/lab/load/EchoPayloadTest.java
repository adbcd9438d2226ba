package io.ringwire.lab.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The generators' checked messages: written and checked in bulk, with the meaning the per-byte loops had. */
class EchoPayloadTest {
    private static final long[] SEQS = {0, 1, 239, 240, 255, 256, 1_000_003, Long.MAX_VALUE, -1};

    @Test
    void shouldWriteSeqTimeAndBytesThatFollowFromSeq() {
        int size = 1024;
        EchoPayload p = new EchoPayload(size);
        for (long seq : SEQS) {
            ByteBuf heap = Unpooled.buffer(size);
            ByteBuf direct = Unpooled.directBuffer(size);
            ByteBuffer nio = ByteBuffer.allocateDirect(size);
            p.write(heap, seq, 42);
            p.write(direct, seq, 42);
            p.write(nio, seq, 42);
            nio.flip();
            for (ByteBuf b : new ByteBuf[] {heap, direct}) {
                assertEquals(size, b.readableBytes());
                assertEquals(seq, b.getLong(0));
                assertEquals(42, b.getLong(8));
                for (int i = EchoPayload.HEADER; i < size; i++) {
                    assertEquals((byte) (seq + i), b.getByte(i), "seq " + seq + ", byte " + i);
                }
                assertEquals(0, p.mismatches(b, 0, size, seq));
                b.release();
            }
            assertEquals(size, nio.remaining());
            for (int i = EchoPayload.HEADER; i < size; i++) {
                assertEquals((byte) (seq + i), nio.get(i));
            }
            assertEquals(0, p.mismatches(nio, size, seq));
        }
    }

    @Test
    void shouldCountEveryWrongByteWhereverTheMessageStarts() {
        int size = 64;
        EchoPayload p = new EchoPayload(size);
        ByteBuf b = Unpooled.buffer(3 + size);
        b.writeBytes(new byte[3]); // the message at index 3, as in a reassembly buffer
        p.write(b, 7, 0);
        b.setByte(3 + 16, b.getByte(3 + 16) + 1);
        b.setByte(3 + 40, b.getByte(3 + 40) ^ 0x80);
        b.setByte(3 + size - 1, 0x55);
        assertEquals(3, p.mismatches(b, 3, size, 7));
        assertEquals(size - 16 - 1, p.mismatches(b, 3, size, 8), "seq 8's bytes: all differ but the one raised by 1");
        assertEquals(2, p.mismatches(b, 3, 41, 7), "a short message checks what it has");
        b.release();

        ByteBuffer nio = ByteBuffer.allocate(size);
        p.write(nio, 7, 0);
        nio.put(20, (byte) 0);
        assertEquals(1, p.mismatches(nio, size, 7));
        assertEquals(0, p.mismatches(nio, 16, 7), "a bare header has no payload to check");
    }

    @Test
    void shouldRejectMessagesShorterThanTheHeader() {
        assertThrows(IllegalArgumentException.class, () -> new EchoPayload(15));
    }
}
