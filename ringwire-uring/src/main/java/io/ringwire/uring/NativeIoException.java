package io.ringwire.uring;

import java.io.IOException;

/**
 * A system call or an io_uring operation failed; the message names the operation and the errno, e.g.
 * {@code "recv failed: ECONNRESET (Connection reset by peer)"}.
 */
public class NativeIoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;

    /**
     * @param operation what failed, e.g. {@code "io_uring_enter"} or {@code "connect 127.0.0.1:1"}
     * @param errno     positive or negative errno
     */
    public NativeIoException(String operation, int errno) {
        super(operation + " failed: " + Errno.name(errno) + " (" + Errno.description(errno) + ")");
        this.operation = operation;
        this.errno = Math.abs(errno);
    }

    /** @return the positive errno, e.g. {@link Errno#ECONNRESET} */
    public int errno() {
        return errno;
    }

    /** @return the errno's name, e.g. {@code "ECONNRESET"} */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** @return the operation that failed */
    public String operation() {
        return operation;
    }

    /**
     * Returns {@code res} when it is not an error, throws otherwise: the edge where raw {@code -errno} becomes an
     * exception.
     *
     * @param res       a syscall's or a CQE's result; negative means {@code -errno}
     * @param operation named in the exception
     * @return {@code res}
     * @throws NativeIoException when {@code res < 0}
     */
    public static int check(int res, String operation) throws NativeIoException {
        if (res < 0) {
            throw new NativeIoException(operation, res);
        }
        return res;
    }
}
