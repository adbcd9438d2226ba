package io.ringwire.spring.boot.app;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes the tests send and expect: byte i of a body is {@link #at(long) at(i)}, a pattern with no short period,
 * so a lost, repeated or reordered chunk shows as a mismatch at its offset. (ringwire-micronaut's tests have the
 * same pattern.)
 */
public final class Payload {
    /** The size of the chunks a body is streamed in. */
    public static final int CHUNK = 64 * 1024;

    private Payload() { }

    /** @return byte {@code i} of every body */
    public static byte at(long i) {
        return (byte) ((i * 0x9E3779B97F4A7C15L) >>> 56);
    }

    /** @return the body of {@code length} bytes, in chunks of {@link #CHUNK} bytes (the last shorter) */
    public static Flux<byte[]> chunks(long length) {
        return Flux.range(0, (int) ((length + CHUNK - 1) / CHUNK)).map(n -> {
            long offset = (long) n * CHUNK;
            byte[] chunk = new byte[(int) Math.min(CHUNK, length - offset)];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = at(offset + i);
            }
            return chunk;
        });
    }

    /** Checks the bytes of a body as they come, in order. */
    public static final class Checker {
        private long checked;
        private long mismatchAt = -1;

        /** @param b the next {@code n} bytes of the body, from {@code off} */
        public void check(byte[] b, int off, int n) {
            for (int i = off; i < off + n; i++) {
                if (mismatchAt < 0 && b[i] != at(checked)) {
                    mismatchAt = checked;
                }
                checked++;
            }
        }

        /** @param buffer the next bytes of the body, released here */
        public void check(DataBuffer buffer) {
            try {
                byte[] b = new byte[buffer.readableByteCount()];
                buffer.read(b);
                check(b, 0, b.length);
            } finally {
                DataBufferUtils.release(buffer);
            }
        }

        /**
         * @param in the rest of the body
         * @throws IOException if reading fails
         */
        public void check(InputStream in) throws IOException {
            byte[] b = new byte[CHUNK];
            for (int n; (n = in.read(b)) != -1; ) {
                check(b, 0, n);
            }
        }

        /** @return "ok n" if all n bytes matched, else "n bytes, the first mismatch at i" */
        @Override
        public String toString() {
            return mismatchAt < 0 ? "ok " + checked : checked + " bytes, the first mismatch at " + mismatchAt;
        }
    }
}
