package io.ringwire.spring.boot.app;

import org.springframework.core.io.buffer.DataBuffer;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes the tests send and expect: byte i of a body is {@link #at(long) at(i)}, a pattern with no short period,
 * so a lost, repeated or reordered buffer shows as a mismatch at its offset.
 */
public final class Payload {
    /** The size of the buffers a body is streamed in. */
    public static final int CHUNK = 64 * 1024;

    private Payload() { }

    /** @return byte {@code i} of every body */
    public static byte at(long i) {
        return (byte) ((i * 0x9E3779B97F4A7C15L) >>> 56);
    }

    /** @return the body of {@code length} bytes, in buffers of {@link #CHUNK} bytes (the last shorter) */
    public static Flux<byte[]> chunks(long length) {
        return Flux.generate(() -> 0L, (offset, sink) -> {
            if (offset >= length) {
                sink.complete();
                return offset;
            }
            byte[] chunk = new byte[(int) Math.min(CHUNK, length - offset)];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = at(offset + i);
            }
            sink.next(chunk);
            return offset + chunk.length;
        });
    }

    /** @return the body of {@code length} bytes as a stream, for the JDK's HttpClient */
    public static InputStream stream(long length) {
        return new InputStream() {
            private long offset;

            @Override
            public int read() {
                return offset < length ? at(offset++) & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (offset >= length) {
                    return -1;
                }
                int n = (int) Math.min(len, length - offset);
                for (int i = 0; i < n; i++) {
                    b[off + i] = at(offset++);
                }
                return n;
            }
        };
    }

    /** Checks the bytes of a body as they come, in order. */
    public static final class Checker {
        private long checked;
        private long mismatchAt = -1;

        /** @param buffer the next bytes of the body (not released here) */
        public void check(DataBuffer buffer) {
            while (buffer.readableByteCount() > 0) {
                check(buffer.read());
            }
        }

        /**
         * @param in the rest of the body
         * @throws IOException if reading fails
         */
        public void check(InputStream in) throws IOException {
            byte[] b = new byte[CHUNK];
            for (int n; (n = in.read(b)) != -1; ) {
                for (int i = 0; i < n; i++) {
                    check(b[i]);
                }
            }
        }

        private void check(byte b) {
            if (mismatchAt < 0 && b != at(checked)) {
                mismatchAt = checked;
            }
            checked++;
        }

        /** @return "ok n" if all n bytes matched, else "n bytes, the first mismatch at i" */
        @Override
        public String toString() {
            return mismatchAt < 0 ? "ok " + checked : checked + " bytes, the first mismatch at " + mismatchAt;
        }
    }
}
