package io.ringwire.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The C library functions and raw system calls the binding uses, as FFM downcalls.
 *
 * <p>Every method returns what the kernel would: a non-negative result, or {@code -errno} (read from the errno the
 * linker captures right after the call, so the JVM's own calls cannot clobber it). No method throws for a failed call
 * and none allocates on the Java heap; {@link NativeIoException#check} is the edge that turns {@code -errno} into an
 * exception. Pointers are passed as {@link MemorySegment}s; pass {@link MemorySegment#NULL} for {@code NULL}.
 */
public final class Libc {
    private Libc() { }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LOOKUP = LINKER.defaultLookup();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET =
        CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** errno capture space for calls made from any thread (socket set-up, eventfd wake-ups); hot loops own theirs. */
    private static final ThreadLocal<MemorySegment> THREAD_CAPTURE =
        ThreadLocal.withInitial(Libc::newErrnoCapture);

    // Each downcall is linked when first used (a holder class per function): linking makes a stub of generated
    // classes, about 0.5 MB of resident memory each, and a server uses fewer than half of them.

    // long syscall(long number, ...): variadic, so the linker must know where the variadic part starts (AL on x86_64)
    private static final class Syscall6 {
        static final MethodHandle H = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG),
            Linker.Option.firstVariadicArg(1), CAPTURE_ERRNO);
    }
    private static final class Mmap {
        static final MethodHandle H = downcall("mmap",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            CAPTURE_ERRNO);
    }
    private static final class Munmap {
        static final MethodHandle H = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    }
    private static final class PageSize {
        static final int SIZE;
        static {
            try {
                SIZE = (int) downcall("getpagesize", FunctionDescriptor.of(JAVA_INT)).invokeExact();
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }
    private static final class Madvise {
        static final MethodHandle H = downcall("madvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Close {
        static final MethodHandle H = downcall("close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Read {
        static final MethodHandle H = downcall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    }
    private static final class Write {
        static final MethodHandle H = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    }
    private static final class Eventfd {
        static final MethodHandle H = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Pipe2 {
        static final MethodHandle H = downcall("pipe2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Socket {
        static final MethodHandle H = downcall("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Bind {
        static final MethodHandle H = downcall("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Listen {
        static final MethodHandle H = downcall("listen",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Connect {
        static final MethodHandle H = downcall("connect",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Accept4 {
        static final MethodHandle H = downcall("accept4",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Setsockopt {
        static final MethodHandle H = downcall("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Getsockopt {
        static final MethodHandle H = downcall("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    }
    private static final class Getsockname {
        static final MethodHandle H = downcall("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    }
    private static final class Getpeername {
        static final MethodHandle H = downcall("getpeername",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    }
    private static final class Shutdown {
        static final MethodHandle H = downcall("shutdown",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Sendmsg {
        static final MethodHandle H = downcall("sendmsg",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Open {
        static final MethodHandle H = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            CAPTURE_ERRNO);
    }
    private static final class Setns {
        static final MethodHandle H = downcall("setns",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    }
    private static final class Sendfile {
        static final MethodHandle H = downcall("sendfile",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    }
    private static final class Prlimit {
        static final MethodHandle H = downcall("prlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
    }

    /** {@code RLIMIT_NOFILE}: the most descriptors a process may have open. */
    public static final int RLIMIT_NOFILE = 7;

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LOOKUP.find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol '" + name + "'"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /**
     * A fresh errno capture segment, for a thread that makes many calls (an event loop) and wants to skip the
     * thread-local look-up; GC-managed.
     *
     * @return a segment laid out as {@link Linker.Option#captureStateLayout()}
     */
    public static MemorySegment newErrnoCapture() {
        return Arena.ofAuto().allocate(CAPTURE_LAYOUT);
    }

    private static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO_OFFSET);
    }

    /**
     * {@code ret}, or {@code -errno} when {@code ret} is -1 (syscall(2)'s failure), computed without a branch. The
     * event loop enters the ring through {@link #syscall} all the time, and a busy loop's enters never fail: C2
     * compiles such a never-taken branch as a trap, and the first wait that times out once the load drops (ETIME)
     * would send the loop's compiled code back to the interpreter, to be profiled again at the low rate's pace for
     * tens of seconds. Reading errno every time costs a load from the capture segment the call has just written.
     *
     * @param ret   what syscall(2) returned
     * @param errno errno after it
     * @return {@code ret}, or {@code -errno} when it was -1
     */
    static long orMinusErrno(long ret, int errno) {
        long notFailed = ((ret + 1) | -(ret + 1)) >> 63; // all ones unless ret + 1 == 0
        return (ret & notFailed) | (-(long) errno & ~notFailed);
    }

    private static int result(long ret, MemorySegment capture) {
        return ret < 0 ? -errno(capture) : (int) ret;
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("native call failed", t);
    }

    // ------------------------------------------------------------------------------------------ raw system calls

    /**
     * {@code syscall(2)} with up to six arguments, capturing errno into {@code capture}.
     *
     * @param capture errno capture space (see {@link #newErrnoCapture()})
     * @param number  the system call number, e.g. {@link IoUringConstants#SYS_IO_URING_ENTER}
     * @param a1      first argument (unused trailing arguments are ignored by the kernel)
     * @param a2      second argument
     * @param a3      third argument
     * @param a4      fourth argument
     * @param a5      fifth argument
     * @param a6      sixth argument
     * @return the result, or {@code -errno}
     */
    public static long syscall(MemorySegment capture, long number, long a1, long a2, long a3, long a4, long a5,
                               long a6) {
        try {
            long ret = (long) Syscall6.H.invokeExact(capture, number, a1, a2, a3, a4, a5, a6);
            return orMinusErrno(ret, errno(capture));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code io_uring_setup(2)}.
     *
     * @param entries requested SQ size
     * @param params  a {@link IoUringParams} struct, read and written by the kernel
     * @return the ring fd, or {@code -errno}
     */
    public static int ioUringSetup(int entries, MemorySegment params) {
        return (int) syscall(THREAD_CAPTURE.get(), IoUringConstants.SYS_IO_URING_SETUP, entries, params.address(),
            0, 0, 0, 0);
    }

    /**
     * {@code io_uring_enter(2)}; the hot call of every event loop, so the caller brings its own errno capture.
     *
     * @param capture     errno capture space owned by the calling loop
     * @param fd          the ring fd, or its registered index with {@code IORING_ENTER_REGISTERED_RING}
     * @param toSubmit    SQEs to submit
     * @param minComplete CQEs to wait for (with {@code IORING_ENTER_GETEVENTS})
     * @param flags       {@code IORING_ENTER_*}
     * @param arg         address of the sigset or {@code io_uring_getevents_arg}, or 0
     * @param argSize     its size
     * @return SQEs consumed, or {@code -errno}
     */
    public static int ioUringEnter(MemorySegment capture, int fd, int toSubmit, int minComplete, int flags, long arg,
                                   long argSize) {
        return (int) syscall(capture, IoUringConstants.SYS_IO_URING_ENTER, fd, toSubmit, minComplete, flags, arg,
            argSize);
    }

    /**
     * {@code io_uring_register(2)}.
     *
     * @param fd     the ring fd
     * @param opcode {@code IORING_REGISTER_*}
     * @param arg    the opcode's argument, or {@link MemorySegment#NULL}
     * @param nrArgs the opcode's count
     * @return the result, or {@code -errno}
     */
    public static int ioUringRegister(int fd, int opcode, MemorySegment arg, int nrArgs) {
        return (int) syscall(THREAD_CAPTURE.get(), IoUringConstants.SYS_IO_URING_REGISTER, fd,
            Integer.toUnsignedLong(opcode), arg.address(), nrArgs, 0, 0);
    }

    // ------------------------------------------------------------------------------------------ memory

    /** {@code PROT_READ | PROT_WRITE}. */
    public static final int PROT_READ_WRITE = 0x1 | 0x2;
    /** {@code MAP_SHARED | MAP_POPULATE}: ring memory shared with the kernel, faulted in up front. */
    public static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;
    /** {@code MAP_PRIVATE | MAP_ANONYMOUS}: zeroed memory of this process, each page committed when first touched. */
    public static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;

    /**
     * {@code mmap(NULL, length, prot, flags, fd, offset)}.
     *
     * @param length bytes
     * @param prot   {@code PROT_*}
     * @param flags  {@code MAP_*}
     * @param fd     the file to map
     * @param offset offset into it (io_uring uses magic offsets, {@code IORING_OFF_*})
     * @return the address, or {@code -errno}
     */
    public static long mmap(long length, int prot, int flags, int fd, long offset) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            long ret = (long) Mmap.H.invokeExact(capture, 0L, length, prot, flags, fd, offset);
            return ret == -1 ? -errno(capture) : ret;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code munmap(addr, length)}.
     *
     * @param address start of the mapping
     * @param length  bytes
     * @return 0 or {@code -errno}
     */
    public static int munmap(long address, long length) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Munmap.H.invokeExact(capture, address, length), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return the system's page size, {@code getpagesize()} */
    public static int pageSize() {
        return PageSize.SIZE;
    }

    /** {@code MADV_DONTNEED}: the pages go back to the system; a private anonymous page reads as zeros after. */
    public static final int MADV_DONTNEED = 4;

    /**
     * {@code madvise(addr, length, advice)}.
     *
     * @param address page-aligned start
     * @param length  bytes
     * @param advice  {@code MADV_*}
     * @return 0 or {@code -errno}
     */
    public static int madvise(long address, long length, int advice) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Madvise.H.invokeExact(capture, address, length, advice), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------ file descriptors

    /**
     * {@code close(fd)}.
     *
     * @param fd the descriptor
     * @return 0 or {@code -errno}
     */
    public static int close(int fd) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Close.H.invokeExact(capture, fd), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code read(fd, buf, count)}.
     *
     * @param fd    the descriptor
     * @param buf   destination
     * @param count bytes at most
     * @return bytes read, or {@code -errno}
     */
    public static int read(int fd, MemorySegment buf, long count) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((long) Read.H.invokeExact(capture, fd, buf, count), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code write(fd, buf, count)}.
     *
     * @param fd    the descriptor
     * @param buf   source
     * @param count bytes
     * @return bytes written, or {@code -errno}
     */
    public static int write(int fd, MemorySegment buf, long count) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((long) Write.H.invokeExact(capture, fd, buf, count), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code eventfd(initval, flags)}.
     *
     * @param initialValue the counter's start
     * @param flags        {@code EFD_*}
     * @return the fd, or {@code -errno}
     */
    public static int eventfd(int initialValue, int flags) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Eventfd.H.invokeExact(capture, initialValue, flags), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code pipe2(fds, flags)}.
     *
     * @param fds   two ints: read end, write end
     * @param flags {@code O_*}
     * @return 0 or {@code -errno}
     */
    public static int pipe2(MemorySegment fds, int flags) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Pipe2.H.invokeExact(capture, fds, flags), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------ sockets

    /**
     * {@code socket(domain, type, protocol)}.
     *
     * @param domain   {@code AF_*}
     * @param type     {@code SOCK_*}, may include {@code SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @param protocol usually 0
     * @return the fd, or {@code -errno}
     */
    public static int socket(int domain, int type, int protocol) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Socket.H.invokeExact(capture, domain, type, protocol), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code bind(fd, addr, len)}.
     *
     * @param fd   the socket
     * @param addr a sockaddr (see {@link SockAddr})
     * @param len  its length
     * @return 0 or {@code -errno}
     */
    public static int bind(int fd, MemorySegment addr, int len) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Bind.H.invokeExact(capture, fd, addr, len), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code listen(fd, backlog)}.
     *
     * @param fd      the socket
     * @param backlog queue length
     * @return 0 or {@code -errno}
     */
    public static int listen(int fd, int backlog) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Listen.H.invokeExact(capture, fd, backlog), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code connect(fd, addr, len)} (blocking or not, as the socket is).
     *
     * @param fd   the socket
     * @param addr a sockaddr
     * @param len  its length
     * @return 0 or {@code -errno}
     */
    public static int connect(int fd, MemorySegment addr, int len) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Connect.H.invokeExact(capture, fd, addr, len), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code accept4(fd, addr, lenp, flags)}.
     *
     * @param fd    the listening socket
     * @param addr  where the peer address goes, or {@code NULL}
     * @param lenp  in/out length, or {@code NULL}
     * @param flags {@code SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @return the new fd, or {@code -errno}
     */
    public static int accept4(int fd, MemorySegment addr, MemorySegment lenp, int flags) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Accept4.H.invokeExact(capture, fd, addr, lenp, flags), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code setsockopt(fd, level, name, value, len)}.
     *
     * @param fd    the socket
     * @param level {@code SOL_SOCKET}, {@code IPPROTO_TCP}, ...
     * @param name  the option
     * @param value the value
     * @param len   its length
     * @return 0 or {@code -errno}
     */
    public static int setsockopt(int fd, int level, int name, MemorySegment value, int len) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Setsockopt.H.invokeExact(capture, fd, level, name, value, len), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code getsockopt(fd, level, name, value, lenp)}.
     *
     * @param fd    the socket
     * @param level the level
     * @param name  the option
     * @param value where the value goes
     * @param lenp  in/out length (a {@code socklen_t})
     * @return 0 or {@code -errno}
     */
    public static int getsockopt(int fd, int level, int name, MemorySegment value, MemorySegment lenp) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Getsockopt.H.invokeExact(capture, fd, level, name, value, lenp), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code getsockname(fd, addr, lenp)}.
     *
     * @param fd   the socket
     * @param addr where the address goes
     * @param lenp in/out length
     * @return 0 or {@code -errno}
     */
    public static int getsockname(int fd, MemorySegment addr, MemorySegment lenp) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Getsockname.H.invokeExact(capture, fd, addr, lenp), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code getpeername(fd, addr, lenp)}.
     *
     * @param fd   the socket
     * @param addr where the address goes
     * @param lenp in/out length
     * @return 0 or {@code -errno}
     */
    public static int getpeername(int fd, MemorySegment addr, MemorySegment lenp) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Getpeername.H.invokeExact(capture, fd, addr, lenp), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code shutdown(fd, how)}.
     *
     * @param fd  the socket
     * @param how {@code SHUT_RD}, {@code SHUT_WR} or {@code SHUT_RDWR}
     * @return 0 or {@code -errno}
     */
    public static int shutdown(int fd, int how) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Shutdown.H.invokeExact(capture, fd, how), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code sendmsg(fd, msg, flags)}: a synchronous send, for the rare path that must not wait for the ring (a write
     * flushed just before close).
     *
     * @param fd    the socket
     * @param msg   a {@code struct msghdr}
     * @param flags {@code MSG_*}
     * @return bytes sent, or {@code -errno}
     */
    public static int sendmsg(int fd, MemorySegment msg, int flags) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((long) Sendmsg.H.invokeExact(capture, fd, msg, flags), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code open(path, flags)} (no O_CREAT: no mode).
     *
     * @param path  the file
     * @param flags {@code O_RDONLY | O_CLOEXEC}, ...
     * @return the fd, or {@code -errno}
     */
    public static int open(String path, int flags) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try (Arena a = Arena.ofConfined()) {
            return result((int) Open.H.invokeExact(capture, a.allocateFrom(path), flags, 0), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code setns(fd, nstype)}: moves the calling thread into a namespace (for a network namespace, sockets it opens
     * afterwards live there).
     *
     * @param fd     an open namespace file, e.g. {@code /var/run/netns/NAME}
     * @param nstype {@code CLONE_NEWNET} (0x40000000), or 0 for any
     * @return 0 or {@code -errno}
     */
    public static int setns(int fd, int nstype) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            return result((int) Setns.H.invokeExact(capture, fd, nstype), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code sendfile(out, in, offset, count)}: file pages to a socket inside the kernel, no copy through user space.
     *
     * @param outFd  the socket
     * @param inFd   the file
     * @param offset a native {@code off_t} to read from, advanced by what was sent
     * @param count  at most this many bytes
     * @return bytes sent (0 at the file's end), or {@code -errno} ({@code -EAGAIN} when the socket is full)
     */
    public static long sendfile(int outFd, int inFd, MemorySegment offset, long count) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try {
            long ret = (long) Sendfile.H.invokeExact(capture, outFd, inFd, offset, count);
            return ret < 0 ? -errno(capture) : ret;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code prlimit(0, resource, new, old)} on this process: reads a resource limit and, when {@code soft} is not
     * negative, sets it.
     *
     * @param resource e.g. {@link #RLIMIT_NOFILE}
     * @param soft     the new soft limit, or -1 to only read
     * @param hard     the new hard limit (raising it needs CAP_SYS_RESOURCE)
     * @param old      two native {@code rlim_t}: the soft and hard limits before the call
     * @return 0, or {@code -errno} ({@code -EPERM} when raising the hard limit is not allowed)
     */
    public static int prlimit(int resource, long soft, long hard, MemorySegment old) {
        MemorySegment capture = THREAD_CAPTURE.get();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment limit = MemorySegment.NULL;
            if (soft >= 0) {
                limit = a.allocate(16, 8);
                limit.set(JAVA_LONG, 0, soft);
                limit.set(JAVA_LONG, 8, hard);
            }
            return result((int) Prlimit.H.invokeExact(capture, 0, resource, limit, old), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Linked with this class, not on first use as the other calls are: an error is often described when the process
     * is out of descriptors (EMFILE), and loading a class then fails where classes are read from a directory, each
     * from a file of its own (a NoClassDefFoundError instead of the errno's description).
     */
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /**
     * {@code strerror(errnum)}.
     *
     * @param errnum a positive errno
     * @return the C library's description
     */
    static String strerror(int errnum) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errnum);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
