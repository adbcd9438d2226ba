package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An eventfd for waking a ring's owner from another thread: the owner keeps a READ on it in its ring
 * ({@link #prepRead}), any thread calls {@link #signal()}, and the READ's CQE ends the owner's wait.
 */
public final class EventFd implements AutoCloseable {
    /** {@code EFD_CLOEXEC}. */
    public static final int EFD_CLOEXEC = 0x80000;
    /** {@code EFD_NONBLOCK}. */
    public static final int EFD_NONBLOCK = 0x800;

    private final int fd;
    private final Arena arena;
    private final MemorySegment readBuffer;
    /** Holds the constant 1 that {@link #signal()} writes; only ever read after construction. */
    private final MemorySegment one;
    private volatile boolean closed;

    private EventFd(int fd) {
        this.fd = fd;
        this.arena = Arena.ofShared();
        this.readBuffer = arena.allocate(8, 8);
        this.one = arena.allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
        NativeMemory.reserve(16);
    }

    /**
     * @return a new non-blocking, close-on-exec eventfd
     * @throws NativeIoException if the kernel refuses (e.g. {@code EMFILE})
     */
    public static EventFd create() throws NativeIoException {
        return new EventFd(NativeIoException.check(Libc.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd"));
    }

    /** @return the descriptor */
    public int fd() {
        return fd;
    }

    /**
     * Prepares the READ that a {@link #signal()} completes; re-arm it after each completion.
     *
     * @param sq       the owner's submission queue
     * @param userData passed back in the CQE
     * @return the SQE
     */
    public long prepRead(SubmissionQueue sq, long userData) {
        return sq.prepRead(fd, readBuffer.address(), 8, 0, userData);
    }

    /**
     * Adds 1 to the counter; safe from any thread. After {@link #close()} it does nothing.
     *
     * @return 8, or {@code -errno}
     */
    public int signal() {
        if (closed) {
            return 0;
        }
        try {
            return Libc.write(fd, one, 8);
        } catch (IllegalStateException closedMeanwhile) {
            return 0; // close() won the race and freed the arena: nobody is left to wake
        }
    }

    /** Closes the fd and frees the read buffer; call only after the READ in the ring has completed or been cancelled. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(fd);
        arena.close();
        NativeMemory.release(16);
    }
}
