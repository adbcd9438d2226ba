package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LibcTest {
    @Test
    void aSyscallsResultIsItselfUnlessItIsMinusOneThenMinusErrno() {
        assertEquals(0, Libc.orMinusErrno(0, 0));
        assertEquals(0, Libc.orMinusErrno(0, Errno.EAGAIN)); // errno is stale after a success: ignored
        assertEquals(7, Libc.orMinusErrno(7, Errno.EBADF));
        assertEquals(Long.MAX_VALUE, Libc.orMinusErrno(Long.MAX_VALUE, Errno.EBADF));
        assertEquals(-Errno.ETIME, Libc.orMinusErrno(-1, Errno.ETIME));
        assertEquals(-Errno.EBADF, Libc.orMinusErrno(-1, Errno.EBADF));
        // syscall(2) reports failure only as -1; any other value is the call's own result
        assertEquals(-2, Libc.orMinusErrno(-2, Errno.EBADF));
        assertEquals(Long.MIN_VALUE, Libc.orMinusErrno(Long.MIN_VALUE, Errno.EBADF));
    }

    @Test
    void aFailedSyscallReturnsMinusErrno() {
        // io_uring_enter on no ring: EBADF, read from the capture segment as after every call
        assertEquals(-Errno.EBADF, Libc.syscall(Libc.newErrnoCapture(), IoUringConstants.SYS_IO_URING_ENTER, -1,
            0, 0, 0, 0, 0));
    }
}
