package io.ringwire.transport;

import io.netty.util.internal.SystemPropertyUtil;
import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.NativeIoException;

/**
 * Whether Ringwire can run in this process, in the style of Netty's {@code IoUring.isAvailable()}: io_uring must be
 * usable (a kernel with it, not switched off by {@code kernel.io_uring_disabled}, not blocked by a seccomp profile as
 * Docker's default one does) and offer what Ringwire needs (Linux 6.1 or later). {@code -Dringwire.disable=true} makes
 * it unavailable on purpose, to run an application on another transport without changing code.
 *
 * <pre>{@code
 * IoHandlerFactory factory = Ringwire.isAvailable() ? RingwireIoHandler.newFactory() : EpollIoHandler.newFactory();
 * }</pre>
 *
 * {@link #bestTransport()} makes that choice, with the channel classes to match: Ringwire, else Netty's epoll, else
 * NIO.
 */
public final class Ringwire {
    /** The system property that turns Ringwire off: {@code -Dringwire.disable=true}. */
    public static final String DISABLE_PROPERTY = "ringwire.disable";

    private Ringwire() { }

    /** @return whether Ringwire's event loops can be created here */
    public static boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /**
     * @return why Ringwire cannot run here, with what to do about it, or {@code null} if it can
     */
    public static Throwable unavailabilityCause() {
        if (SystemPropertyUtil.getBoolean(DISABLE_PROPERTY, false)) {
            return new UnsupportedOperationException("Ringwire is disabled by -D" + DISABLE_PROPERTY + "=true");
        }
        NativeAccess.warnIfMissing(); // before the binding's first restricted call, which the JDK warns of
        IoUringProbe probe = IoUringProbe.get();
        if (!probe.isAvailable()) {
            Throwable cause = probe.unavailabilityCause();
            if (NativeAccess.refused(cause)) {
                return new UnsupportedOperationException("this JVM refuses native access: "
                    + NativeAccess.ADVICE, cause);
            }
            return new UnsupportedOperationException("io_uring is unavailable on this kernel (" + probe.kernelRelease()
                + "): " + cause.getMessage() + hint(cause), cause);
        }
        if (!probe.missingForRingwire().isEmpty()) {
            return new UnsupportedOperationException("this kernel (" + probe.kernelRelease() + ") lacks what Ringwire "
                + "needs: " + String.join(", ", probe.missingForRingwire()) + " (Linux " + probe.kernelWithAllNeeded()
                + " or later has it all)");
        }
        return null;
    }

    /**
     * The best transport available here, chosen once per process and logged once (Netty's {@code InternalLogger}, this
     * package's {@code BestTransport}): Ringwire if {@link #isAvailable()}, else Netty's epoll transport if
     * {@code netty-transport-native-epoll} is on the class path and {@code Epoll.isAvailable()}, else NIO.
     *
     * <pre>{@code
     * BestTransport transport = Ringwire.bestTransport();
     * EventLoopGroup group = new MultiThreadIoEventLoopGroup(transport.ioHandlerFactory());
     * new ServerBootstrap().group(group).channel(transport.serverSocketChannelClass());
     * }</pre>
     *
     * @return the transport's {@code IoHandlerFactory}, its channel classes, which one it is and why
     */
    public static BestTransport bestTransport() {
        return BestTransport.Chosen.INSTANCE;
    }

    /**
     * @throws UnsupportedOperationException if Ringwire cannot run here: its message says why and names the
     *                                       alternative, its cause is the kernel's answer
     */
    public static void ensureAvailability() {
        Throwable cause = unavailabilityCause();
        if (cause != null) {
            throw new UnsupportedOperationException(cause.getMessage() + "; use Netty's epoll transport instead "
                + "(EpollIoHandler.newFactory(), EpollServerSocketChannel, EpollSocketChannel), or NIO",
                cause.getCause() != null ? cause.getCause() : cause);
        }
    }

    /** The system property that keeps each channel's last N operations for {@link #trace}. */
    public static final String TRACE_PROPERTY = "ringwire.trace";

    /**
     * A Ringwire channel's last operations, oldest first, one per line: each SQE it prepared ({@code submit}), each
     * CQE it got with its result, errno and flags ({@code cqe}), and the channel's own events (a read asked for,
     * autoRead going off, bytes kept for a read, the end of input, the close), each with the milliseconds since the
     * channel was made. Kept only when the JVM runs with {@code -Dringwire.trace=N} (the last N per channel; off by
     * default, when the I/O paths record nothing). For finding out why a connection stalled or closed, e.g. from a
     * close future's listener or a debugger.
     *
     * @param channel a Ringwire channel
     * @return the trace, read on the channel's event loop; or a line saying that tracing is off
     * @throws IllegalArgumentException if {@code channel} is not Ringwire's
     */
    public static io.netty.util.concurrent.Future<String> trace(io.netty.channel.Channel channel) {
        if (!(channel instanceof AbstractRingwireChannel c)) {
            throw new IllegalArgumentException("not a Ringwire channel: " + channel);
        }
        if (!OpTrace.ON) {
            return io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newSucceededFuture("tracing is off: run "
                + "with -D" + TRACE_PROPERTY + "=64 to keep each channel's last 64 operations");
        }
        io.netty.channel.EventLoop loop;
        try {
            loop = c.eventLoop();
        } catch (IllegalStateException neverRegistered) {
            loop = null;
        }
        if (loop == null || loop.inEventLoop() || loop.isShutdown()) {
            return io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newSucceededFuture(c.opTrace.describe());
        }
        return loop.submit(c.opTrace::describe);
    }

    private static String hint(Throwable cause) {
        if (cause instanceof NativeIoException e) {
            if (e.errno() == Errno.EPERM) {
                return " (io_uring is blocked: the sysctl kernel.io_uring_disabled, or a seccomp profile such as "
                    + "Docker's default one)";
            }
            if (e.errno() == Errno.ENOSYS) {
                return " (the kernel has no io_uring: older than 5.1, or built without it)";
            }
        }
        return "";
    }
}
