package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

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
    /** Threads inside {@link #signal()} past its first check of {@link #closed}. */
    private final AtomicInteger signalling = new AtomicInteger();

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
        signalling.incrementAndGet();
        try {
            // close() sets closed before it reads signalling, and this thread counted itself before reading closed:
            // either it sees closed here, or close() sees it counted and waits for this write
            return closed ? 0 : Libc.write(fd, one, 8);
        } finally {
            signalling.decrementAndGet();
        }
    }

    /**
     * Closes the fd and frees the read buffer; call only after the READ in the ring has completed or been cancelled.
     * A {@link #signal()} under way on another thread is waited for (one write(2)): freed under it, the buffer's arena
     * refused to close ("Session is acquired"), and the fd's number, closed under it, could already name another file.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (signalling.get() != 0) {
            Thread.onSpinWait();
        }
        Libc.close(fd);
        arena.close();
        NativeMemory.release(16);
    }
}
