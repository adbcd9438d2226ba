package io.ringwire.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ringwire.uring.CompletionHandler;
import io.ringwire.uring.CompletionQueue;
import io.ringwire.uring.Errno;
import io.ringwire.uring.EventFd;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.SubmissionQueue;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.ringwire.uring.IoUringConstants.IORING_OP_ASYNC_CANCEL;
import static io.ringwire.uring.IoUringConstants.IORING_OP_READ;

/**
 * Netty's {@link IoHandler} on one io_uring: one ring per event loop, owned by the loop's thread.
 *
 * <p>One iteration ({@link #run}) is: let the handles that asked gather their writes into SQEs; one
 * {@code io_uring_enter} that submits every SQE produced since the last one and waits, if the loop has nothing else
 * to do, until a completion, the next scheduled task's deadline (the enter's own timeout), or a wake-up from another
 * thread (an eventfd READ kept in the ring); then drain the CQ in one batch, dispatching each CQE by the registration
 * id in its user_data ({@link UserData}); then return the receive buffers used and publish them once.
 *
 * <p>Shutdown cancels whatever is still in flight and waits, bounded, for those completions before freeing the
 * memory they point at.
 */
public final class RingwireIoHandler implements IoHandler {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingwireIoHandler.class);

    private static final int MAX_CQES_PER_DRAIN = 4096;
    /** The longest sleep while an SQE the kernel refused waits to be queued again. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WAKEUP_USER_DATA = UserData.encode(UserData.HANDLER_ID, IORING_OP_READ, 0);
    private static final long CANCEL_ALL_USER_DATA = UserData.encode(UserData.HANDLER_ID, IORING_OP_ASYNC_CANCEL, 0);

    static {
        // Load what completion handling touches now: class loading opens files, and a loop that first needs a class
        // while the process is out of descriptors (EMFILE) would die of NoClassDefFoundError.
        for (Class<?> c : new Class<?>[] {IoUringCqe.class, UserData.class, Errno.class, NativeIoException.class,
            RingwireIoEvent.class, RingwireCounters.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        // The same for the time-zone data every logger's time stamp needs (JDK logging, Logback, Log4j): the JDK reads
        // it from a file at its first use, and read first while out of descriptors it fails for the rest of the JVM's
        // life. An accept storm's EMFILE is often the first thing a fresh server logs.
        java.time.ZoneId.systemDefault().getRules();
    }

    /**
     * Completions that end a sleep with a minimum wait before the minimum has passed ({@link #minWaitMicros}): a
     * busy loop wakes at once, as without it.
     */
    static final int MIN_WAIT_BATCH = 64;
    private static volatile boolean minWaitFallbackLogged;
    /** Completions per minimum wait from which the loop sleeps with the minimum (see {@link #minWaitPays()}). */
    static final int MIN_WAIT_PAYS_FROM = 4;
    /**
     * How often, at most, the loop judges again whether the minimum wait pays: every 10 ms, or every 16 minimums if
     * that is longer, so that a few completions close together (a connection's first) do not decide.
     */
    private final long minWaitWindowNanos;
    private long minWaitWindowStart = System.nanoTime();
    private long minWaitWindowCqes;
    private boolean minWaitPaysNow;

    private final ThreadAwareExecutor executor;
    private final RingwireIoHandlerConfig config;
    /** {@link RingwireIoHandlerConfig#minWaitMicros()} where the kernel has it, else 0. */
    private final int minWaitMicros;
    private final IoUring ring;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final EventFd wakeupFd;
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private final IntObjectHashMap<RingwireIoRegistration> registrations = new IntObjectHashMap<>();
    private final List<RingwireIoRegistration> beforeEnter = new ArrayList<>();
    private final List<RingwireIoRegistration> afterCompletions = new ArrayList<>();
    /** Handles whose SQE the kernel refused (SQ full, nothing taken): asked again in the next iteration. */
    private final List<RingwireIoRegistration> retries = new ArrayList<>();
    /** Cancels that found the SQ refusing, by target user_data (which names its registration): queued next time. */
    private final java.util.ArrayDeque<Long> deferredCancels = new java.util.ArrayDeque<>();
    private final RingwireIoEvent event = new RingwireIoEvent();
    private final CompletionHandler dispatcher = this::dispatch;
    private final RingwireCounters counters;
    private final Arena scratchArena;
    private final Scratch scratch;
    private final SyncCalls syncCalls;
    private final FixedFileTable fileTable;
    private final SlotMoves slotMoves;
    private final ReceiveBuffers receiveBuffers;
    private final WriteGather writeGather = new WriteGather(this);

    private int nextId = 1;
    /** {@link #initialize()} ran once: a second call comes from a loop resumed on a new thread. */
    private boolean initialized;
    private boolean wakeupReadArmed;
    private boolean shuttingDown;
    private boolean destroyed;

    private RingwireIoHandler(ThreadAwareExecutor executor, RingwireIoHandlerConfig config) {
        this.executor = executor;
        this.config = config;
        Ringwire.ensureAvailability();
        IoUring r = null;
        EventFd e = null;
        Arena a = null;
        MemorySegment scratchSegment;
        MemorySegment syncArea;
        try {
            // Netty builds handlers on one thread and runs them on another: create disabled, enable in initialize()
            r = IoUring.builder().entries(config.ringEntries()).cqEntries(config.cqEntries())
                .singleIssuer(config.singleIssuer()).deferTaskrun(config.deferTaskrun())
                .noSqArray(config.noSqArray()).startDisabled(true).build();
            e = EventFd.create();
            // iovecs and sockaddrs for one iteration's SQEs: the kernel copies them at submission
            // (FEAT_SUBMIT_STABLE), so the space is reused after every enter
            a = Arena.ofShared();
            scratchSegment = a.allocate((long) config.iovecCapacity() * 16 + 64 * 1024, 64);
            syncArea = a.allocate(SyncCalls.AREA_BYTES, 64);
        } catch (NativeIoException | RuntimeException | OutOfMemoryError ex) {
            // a half-built handler frees what it built: no ring, eventfd or native memory left behind
            if (a != null) {
                a.close();
            }
            if (e != null) {
                e.close();
            }
            if (r != null) {
                r.close();
            }
            throw ex instanceof NativeIoException nio ? new UncheckedIOException(nio) : rethrowUnchecked(ex);
        }
        this.scratchArena = a;
        this.ring = r;
        this.wakeupFd = e;
        this.sq = r.sq();
        this.cq = r.cq();
        this.scratch = new Scratch(r, scratchSegment);
        this.counters = new RingwireCounters(String.valueOf(executor));
        this.syncCalls = new SyncCalls(this, r, counters, scratch, syncArea);
        this.fileTable = new FixedFileTable(this, r, config, counters);
        this.slotMoves = new SlotMoves(this, r, fileTable, counters);
        this.receiveBuffers = new ReceiveBuffers(this, config, counters);
        if (!r.missingSetupFlags().isEmpty()) {
            logger.info("io_uring set-up gave up: {}", r.missingSetupFlags());
        }
        boolean minTimeout = (r.features() & IoUringConstants.IORING_FEAT_MIN_TIMEOUT) != 0;
        this.minWaitMicros = minTimeout ? config.minWaitMicros() : 0;
        this.minWaitWindowNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), 16_000L * minWaitMicros);

        if (config.minWaitMicros() > 0 && !minTimeout && !minWaitFallbackLogged) {
            minWaitFallbackLogged = true;
            logger.info("minWaitMicros={} ignored: this kernel has no IORING_FEAT_MIN_TIMEOUT (Linux 6.12); every "
                + "completion wakes the loop", config.minWaitMicros());
        }
    }

    private static RuntimeException rethrowUnchecked(Throwable t) {
        if (t instanceof Error err) {
            throw err;
        }
        return (RuntimeException) t;
    }

    /** @return a factory for handlers with the default {@link RingwireIoHandlerConfig} */
    public static IoHandlerFactory newFactory() {
        return newFactory(RingwireIoHandlerConfig.builder().build());
    }

    /**
     * @param config the settings every handler of the factory gets
     * @return a factory for {@code new MultiThreadIoEventLoopGroup(n, factory)}
     */
    public static IoHandlerFactory newFactory(RingwireIoHandlerConfig config) {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new RingwireIoHandler(executor, config);
            }

            /**
             * Whether a loop may change threads: Netty 4.2's auto-scaling groups suspend an idle loop (its thread
             * ends) and resume it on another. Only without SINGLE_ISSUER, which binds the ring to the thread that
             * enabled it (and DEFER_TASKRUN, which needs it), as with Netty's io_uring.
             */
            @Override
            public boolean isChangingThreadSupported() {
                return !config.singleIssuer();
            }
        };
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public void initialize() {
        try {
            ring.enable(); // this thread becomes the ring's single issuer
            if (config.registerRingFd()) {
                ring.registerRingFd(); // for this thread: a resumed loop registers it again for its new one
            }
            if (initialized) {
                RingwireCounters.publish(executor, counters);
                return; // a loop resumed on another thread (singleIssuer off): the ring and its tables are as left
            }
            initialized = true;
            receiveBuffers.register(ring);
            fileTable.register();
        } catch (NativeIoException e) {
            throw new UncheckedIOException(e);
        }
        RingwireCounters.publish(executor, counters);
    }

    /** @return whether this loop's stream connections live in its fixed-file table without an fd */
    boolean directDescriptors() {
        return fileTable.directDescriptors();
    }

    /** @return whether the calling thread is this loop's */
    boolean inLoop() {
        return executor.isExecutorThread(Thread.currentThread());
    }

    /** @return the loop, for running a task on it */
    java.util.concurrent.Executor executor() {
        return executor;
    }


    /** @return the completion queue's entries, as the kernel made it */
    int cqEntries() {
        return cq.entries();
    }

    /** A completion of the handler's own that is not the wake-up: moved slots, emptied slots. */
    private void handlerCompletion(long userData, int res) {
        switch (UserData.opcode(userData)) {
            case IoUringConstants.IORING_OP_MSG_RING -> slotMoves.completed(UserData.data(userData), res);
            case IoUringConstants.IORING_OP_CLOSE -> fileTable.slotClosed(UserData.data(userData), res);
            default -> { } // a synchronous call's, read by its caller; cancels
        }
    }

    @Override
    public int run(IoHandlerContext context) {
        counters.iterations++;
        retryRefused();
        prepareHandlesBeforeEnter();
        int ret;
        if ((cq.ready() | syncCalls.stashed()) == 0 && context.canBlock()) { // (stashed: a task's call took them out)
            if (!wakeupReadArmed && reserveSqe()) {
                wakeupFd.prepRead(sq, WAKEUP_USER_DATA);
                wakeupReadArmed = true;
            }
            long timeout = context.deadlineNanos() == -1 ? -1 : context.delayNanos(System.nanoTime());
            if (!wakeupReadArmed || !retries.isEmpty() || !deferredCancels.isEmpty() || slotMoves.hasDeferredSends()) {
                // something the kernel refused waits for the next iteration, or no wake-up can reach us: a short nap
                timeout = timeout < 0 ? RETRY_NANOS : Math.min(timeout, RETRY_NANOS);
            }
            if (minWaitMicros > 0 && (timeout < 0 || timeout > minWaitMicros * 1000L) && minWaitPays()) {
                // completions do not wake it before the minimum; a task due sooner keeps the plain wait
                counters.minWaits++;
                ret = ring.submitAndWait(MIN_WAIT_BATCH, timeout, minWaitMicros);
            } else {
                ret = ring.submitAndWait(timeout == 0 ? 0 : 1, timeout);
            }
        } else {
            ret = ring.submitAndWait(0, -1); // submit, and run deferred completions, without waiting
        }
        scratch.reuseIfSubmitted(); // the kernel has copied everything the SQEs pointed at
        counters.enters = ring.enterCount();
        counters.sqes = ring.sqesSubmitted();
        if (unexpectedEnterError(ret) != 0) {
            logger.warn("io_uring_enter failed: {}", Errno.name(ret));
        }
        int drained = drainCompletions();
        if ((sq.kernelFlags() & IoUringConstants.IORING_SQ_CQ_OVERFLOW) != 0) {
            // the CQ was full and the kernel kept the rest on its overflow list (FEAT_NODROP): the next enter
            // (GETEVENTS, with or without waiting) moves them into the CQ, so nothing is lost; counted so a CQ too
            // small for the load shows
            counters.cqOverflows++;
        }
        return drained;
    }

    /** What an enter may return in normal operation: its wait timed out, a signal, a full CQ, a moment's want. */
    private static final long EXPECTED_ENTER_ERRNOS =
        1L << Errno.ETIME | 1L << Errno.EINTR | 1L << Errno.EBUSY | 1L << Errno.EAGAIN;

    /**
     * Whether an enter failed in a way worth a warning, computed without a branch: a busy loop's enters never fail,
     * and a branch it never takes is compiled as a trap (why that costs: {@code Libc.orMinusErrno} in ringwire-uring).
     * The branch that remains, on this method's result, is never taken on a busy loop nor on an idle one.
     *
     * @param ret what {@code io_uring_enter} returned
     * @return 1 for an error other than ETIME, EINTR, EBUSY and EAGAIN, else 0
     */
    static int unexpectedEnterError(int ret) {
        int failed = ret >>> 31;
        int errno = -ret;
        int known = (errno - 64) >>> 31; // 1 when errno < 64, the bits of EXPECTED_ENTER_ERRNOS
        int expected = (int) (EXPECTED_ENTER_ERRNOS >>> errno) & known;
        return failed & (expected ^ 1);
    }

    /**
     * Whether the minimum wait pays at the loop's present load, judged again every {@link #minWaitWindowNanos}:
     * it does when completions come at least {@link #MIN_WAIT_PAYS_FROM} per minimum. Below that a sleep rarely
     * collects a second one and costs more than a plain wait: the kernel ends a wait whose minimum expires with any
     * completion in the CQ, and an echo's SEND completes while the wait's own enter submits it, so each message
     * would cost the timer and two wake-ups instead of one (echo at 500 msgs/s: 1.58 x the plain wait's CPU).
     */
    private boolean minWaitPays() {
        long now = System.nanoTime();
        long elapsed = now - minWaitWindowStart;
        if (elapsed >= minWaitWindowNanos) {
            minWaitPaysNow = minWaitPays(counters.cqes - minWaitWindowCqes, elapsed, minWaitMicros);
            minWaitWindowStart = now;
            minWaitWindowCqes = counters.cqes;
        }
        return minWaitPaysNow;
    }

    /**
     * @param cqes          completions the loop reaped in a window
     * @param elapsedNanos  the window
     * @param minWaitMicros the minimum wait
     * @return whether they came at least {@link #MIN_WAIT_PAYS_FROM} per minimum
     */
    static boolean minWaitPays(long cqes, long elapsedNanos, int minWaitMicros) {
        return cqes * minWaitMicros * 1000L >= MIN_WAIT_PAYS_FROM * elapsedNanos;
    }

    /** Queues again what the kernel refused in the last iteration: deferred cancels, then handles' retries. */
    private void retryRefused() {
        while (!deferredCancels.isEmpty() && reserveSqe()) {
            long target = deferredCancels.poll();
            RingwireIoRegistration r = registrations.get(UserData.id(target));
            if (r != null) { // else every operation of it has ended: nothing left to cancel
                sq.prepCancel(target, IoUringConstants.IORING_ASYNC_CANCEL_ALL,
                    r.nextUserData(IORING_OP_ASYNC_CANCEL, 0));
            }
        }
        if (slotMoves.hasDeferredSends()) {
            slotMoves.retryDeferredSends();
        }
        if (!retries.isEmpty()) {
            for (RingwireIoRegistration r : retries) {
                r.retryRequested = false;
                r.prepareBeforeEnter();
            }
            retries.clear();
        }
    }

    private void prepareHandlesBeforeEnter() {
        List<RingwireIoRegistration> list = beforeEnter;
        // a handle may ask again while being prepared; the index loop sees those too
        for (int i = 0; i < list.size(); i++) {
            RingwireIoRegistration r = list.get(i);
            r.beforeEnterRequested = false;
            RingwireIoHandle h = r.fastHandle();
            if (h != null && r.isValid()) {
                try {
                    h.prepareBeforeEnter();
                } catch (Throwable t) {
                    handlerFailed("prepareBeforeEnter", h, t);
                }
            }
        }
        list.clear();
    }

    /**
     * What a handle's code threw into the loop: counted, and logged where the logger can. Errors too: the code a
     * completion runs includes the application's handlers and its logger, and one failure there must not end the loop
     * that serves every other channel. A logger that fails in turn (out of descriptors, say) is let be: the counter
     * still says it happened.
     */
    void handlerFailed(String where, Object handle, Throwable t) {
        counters.handlerFailures++;
        try {
            logger.warn("{} of {} threw", where, handle, t);
        } catch (Throwable logFailure) {
            // nothing more to do here; the loop goes on
        }
    }

    private int drainCompletions() {
        int total = 0;
        int n;
        long recvsBefore = counters.recvs;
        receiveBuffers.batchStarts();
        do {
            if (syncCalls.stashed() > 0) { // taken out of the CQ by a synchronous call: before those still in it
                total += syncCalls.dispatchStashed();
            }
            n = cq.drain(dispatcher, MAX_CQES_PER_DRAIN);
            total += n;
        } while (n == MAX_CQES_PER_DRAIN || syncCalls.stashed() > 0);
        counters.cqes += total;
        // kept from the last batch that had completions; chosen without a branch (see unexpectedEnterError)
        int hadCompletions = (total | -total) >> 31; // all ones when total > 0
        receivesLastBatch = ((int) Math.min(Integer.MAX_VALUE, counters.recvs - recvsBefore) & hadCompletions)
            | (receivesLastBatch & ~hadCompletions);
        List<RingwireIoRegistration> list = afterCompletions;
        for (int i = 0; i < list.size(); i++) {
            RingwireIoRegistration r = list.get(i);
            r.afterCompletionsRequested = false;
            RingwireIoHandle h = r.fastHandle();
            if (h != null) {
                try {
                    h.afterCompletions();
                } catch (Throwable t) {
                    handlerFailed("afterCompletions", h, t);
                }
            }
        }
        list.clear();
        receiveBuffers.batchEnded(receivesLastBatch);
        return total;
    }

    /** Receives (of every channel) that the last batch of completions carried. */
    private int receivesLastBatch;

    /**
     * @return whether the loop's last batch of completions carried few receives: few connections are busy, and one
     *         of them may read on for several iterations before its flush (see the stream channel's read loop)
     */
    boolean fewReceivesPerBatch() {
        return receivesLastBatch <= FEW_RECEIVES;
    }

    /**
     * Receives per batch up to which a bulk stream's read loop goes on over several iterations: with one or a few
     * busy connections more bytes per SEND save kernel work; with many, each batch is already large, and holding
     * 16 reads' worth per connection only leaves the buffers cold (rpc-backend, 32 connections: no gain).
     */
    private static final int FEW_RECEIVES = 4;

    /** Hands one completion to its registration's handle, or the handler's own; also {@link SyncCalls}' stash. */
    void dispatch(long userData, int res, int flags) {
        int id = UserData.id(userData);
        byte op = UserData.opcode(userData);
        if (id == UserData.HANDLER_ID) {
            if (userData == WAKEUP_USER_DATA) {
                wakeupReadArmed = false;
                wakeupPending.set(false);
            } else {
                handlerCompletion(userData, res);
            }
            return;
        }
        RingwireIoRegistration r = registrations.get(id);
        if (r == null) {
            unknownRegistration(id, op, res, flags);
            return;
        }
        boolean last = !IoUringCqe.hasMore(flags);
        if (OpTrace.ON) {
            r.traceCompleted(op, res, flags, UserData.data(userData));
        }
        try {
            RingwireIoHandle h = r.fastHandle();
            if (h != null) {
                h.complete(op, res, flags, UserData.data(userData));
            } else {
                event.set(op, res, flags, UserData.data(userData));
                r.handle().handle(r, event);
            }
        } catch (Throwable t) {
            handlerFailed("the completion handler", r.handle(), t);
        } finally {
            if (last && r.completed()) {
                unregister(r);
            }
        }
    }

    /** A CQE for a registration no longer in the table (kept apart so that {@link #dispatch} stays small). */
    private void unknownRegistration(int id, byte op, int res, int flags) {
        receiveBuffers.giveBackUnclaimed(res, flags);
        logger.debug("completion for unknown registration {}: op={} res={}", id, IoUringConstants.opName(op), res);
    }

    @Override
    public void prepareToDestroy() {
        shuttingDown = true;
        for (RingwireIoRegistration r : new ArrayList<>(registrations.values())) {
            if (!r.isValid()) {
                continue; // deregistered, its last completions due: the channel belongs to no loop, or to another
            }
            try {
                r.handle().close();
            } catch (Exception e) {
                logger.debug("closing {} on shutdown failed", r.handle(), e);
            }
        }
    }

    @Override
    public void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        // no loop sends a move here from now on, and slots still expected from other loops will not come now
        slotMoves.stopExpecting();
        // every channel still registered is closed here: Netty skips prepareToDestroy() when shutdown is confirmed
        // in the same iteration it was asked for, and a channel can join between its last call and now (a hop from
        // another loop, a registration task run after it); the loop takes no more tasks, so their close runs to the
        // end now (channelInactive, channelUnregistered); channels closed already are left alone
        shuttingDown = true;
        for (RingwireIoRegistration r : new ArrayList<>(registrations.values())) {
            if (r.isValid() && r.fastHandle() != null) {
                try {
                    r.fastHandle().closeOnStoppedLoop();
                } catch (Exception e) {
                    logger.debug("closing {} on shutdown failed", r.handle(), e);
                }
            }
        }
        RingwireCounters.retire(executor);
        // moves of direct descriptors that waited for room in the SQ go now (the loop has no next iteration): their
        // completions come in the wait below, with the cancels'
        if (slotMoves.hasDeferredSends()) {
            slotMoves.retryDeferredSends();
        }
        // cancel everything still in flight (the wake-up read too) and wait, bounded, for those completions: the
        // kernel may write into receive buffers until then
        boolean cancelQueued = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while ((wakeupReadArmed || !registrations.isEmpty() || slotMoves.sendsInFlight())
            && System.nanoTime() < deadline) {
            if (!cancelQueued && sq.tryReserve()) {
                sq.prepCancel(0, IoUringConstants.IORING_ASYNC_CANCEL_ANY | IoUringConstants.IORING_ASYNC_CANCEL_ALL,
                    CANCEL_ALL_USER_DATA);
                cancelQueued = true;
            }
            ring.submitAndWait(1, TimeUnit.MILLISECONDS.toNanos(50));
            drainCompletions();
            if (!registrations.isEmpty()) {
                // a handle that never called cancel() still holds its id: nothing more will arrive for it
                boolean anyInFlight = false;
                for (RingwireIoRegistration r : registrations.values()) {
                    anyInFlight |= r.inFlight() > 0;
                }
                if (!anyInFlight && !slotMoves.sendsInFlight()) {
                    break;
                }
            }
        }
        slotMoves.failPendingSends();
        slotMoves.closeToMovesIn();
        boolean quiet = !wakeupReadArmed && allIdle();
        if (quiet) {
            receiveBuffers.close();
            wakeupFd.close();
            ring.close();
            scratchArena.close();
        } else {
            // something the kernel may still write to is in flight: close the ring (the kernel cancels and waits),
            // but leave the buffer memory to the GC-less void rather than risk a write into freed memory
            logger.warn("io_uring operations still in flight at shutdown; closing the ring without freeing their "
                + "buffers: {}", registrations.values());
            ring.close();
        }
    }

    private boolean allIdle() {
        for (RingwireIoRegistration r : registrations.values()) {
            if (r.inFlight() > 0) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------ registrations

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        if (shuttingDown) {
            throw new IllegalStateException("RingwireIoHandler is shutting down");
        }
        int start = nextId;
        for (;;) {
            int id = nextId++;
            if (nextId <= 0) {
                nextId = 1; // ids are positive; 0 belongs to the handler
            }
            if (!registrations.containsKey(id)) {
                RingwireIoRegistration r = new RingwireIoRegistration(this, handle, id);
                registrations.put(id, r);
                counters.registrations = registrations.size();
                handle.registered();
                return r;
            }
            if (nextId == start) {
                throw new IllegalStateException("registration id space exhausted");
            }
        }
    }

    void unregister(RingwireIoRegistration r) {
        if (registrations.remove(r.id()) != null) {
            counters.registrations = registrations.size();
            r.handle().unregistered();
        }
    }


    void requestRetry(RingwireIoRegistration r) {
        retries.add(r);
    }

    /** @return whether one SQE can be prepared now; counts a refusal (see {@link SubmissionQueue#tryReserve()}) */
    boolean reserveSqe() {
        if (TestHooks.refuseSqes > 0 && TestHooks.refusingLoop == this) { // (a test's fault injection)
            TestHooks.refuseSqes--;
        } else if (sq.tryReserve()) {
            return true;
        }
        counters.sqRefusals++;
        return false;
    }

    /**
     * Cancels every op of {@code r} with user_data {@code target}; when the SQ refuses, the cancel is queued in the
     * next iteration instead, so a close never fails for want of an SQE.
     */
    void cancel(RingwireIoRegistration r, long target) {
        if (reserveSqe()) {
            sq.prepCancel(target, IoUringConstants.IORING_ASYNC_CANCEL_ALL, r.nextUserData(IORING_OP_ASYNC_CANCEL, 0));
        } else {
            deferredCancels.add(target);
        }
    }

    /**
     * @return the result of the op of {@code userData} when the kernel has posted its CQE and the loop has not yet
     *     handled it (it comes later in the batch being handled, or in the stash), else {@link Integer#MIN_VALUE}; a
     *     zero-copy send's notification does not count
     */
    int postedResult(long userData) {
        int stashedRes = syncCalls.stashedNotHandedOut(userData); // (stashed ones come before those in the CQ)
        if (stashedRes != Integer.MIN_VALUE) {
            return stashedRes;
        }
        return cq.postedResult(userData, IoUringConstants.IORING_CQE_F_NOTIF);
    }

    void requestBeforeEnter(RingwireIoRegistration r) {
        beforeEnter.add(r);
    }

    void requestAfterCompletions(RingwireIoRegistration r) {
        afterCompletions.add(r);
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread()) && !wakeupPending.getAndSet(true)) {
            wakeupFd.signal();
        }
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RingwireIoHandle.class.isAssignableFrom(handleType);
    }

    // ------------------------------------------------------------------------------------------ for channels

    SubmissionQueue sq() {
        return sq;
    }

    RingwireIoHandlerConfig config() {
        return config;
    }

    /**
     * @return whether zero-copy sends may be tried on this loop: the kernel has SEND_ZC and SENDMSG_ZC [6.1], and no
     *         send of this loop was refused for want of memory to pin (see {@link #zeroCopyOutOfMemory()})
     */
    boolean zeroCopyAvailable() {
        return ZERO_COPY_SUPPORTED && !zeroCopyOutOfMemory;
    }

    /**
     * A zero-copy send failed with ENOMEM: the pages it would pin exceed what the process may lock (RLIMIT_MEMLOCK)
     * or the socket's option memory. Sends on this loop copy from now on; said once per process.
     */
    void zeroCopyOutOfMemory() {
        zeroCopyOutOfMemory = true;
        if (!zeroCopyEnomemLogged) {
            zeroCopyEnomemLogged = true;
            logger.warn("a zero-copy send (SEND_ZC) failed with ENOMEM: the memory it pins is over this process's "
                + "RLIMIT_MEMLOCK or the socket's optmem_max; {} and any loop that meets it send with a copy "
                + "from now on (raise the limit, or the SEND_ZC threshold, to keep zero copy)", executor);
        }
    }

    private boolean zeroCopyOutOfMemory;
    private static volatile boolean zeroCopyEnomemLogged;
    private static final boolean ZERO_COPY_SUPPORTED = zeroCopySupported();

    private static boolean zeroCopySupported() {
        io.ringwire.uring.IoUringProbe p = io.ringwire.uring.IoUringProbe.get();
        return p.isAvailable() && p.isOpSupported(IoUringConstants.IORING_OP_SEND_ZC)
            && p.isOpSupported(IoUringConstants.IORING_OP_SENDMSG_ZC);
    }

    RingwireCounters counters() {
        return counters;
    }

    /** @return the loop's receive buffer ring, set up or not ({@link RingwireIoHandlerConfig#bufferRing()}) */
    ReceiveBuffers receiveBuffers() {
        return receiveBuffers;
    }

    /**
     * Submits what waits in the SQ, for a channel about to close its fd that prepared an SQE since the last enter
     * ({@link RingwireIoRegistration#hasUnsubmittedSqe()}): an SQE naming a closed fd number would act on whatever
     * socket gets that number next. The usual close (after an EOF completion, with only cancels queued, which name a
     * user_data, not the fd) does not get here and costs no enter. When the kernel refuses the enter (EAGAIN: no
     * memory for requests now), once more with GETEVENTS, whose completion work frees requests; if it still takes
     * none, {@code r}'s queued SQEs are made to fail with EBADF when it does ({@link SubmissionQueue#disarmUnconsumed}),
     * so that none acts on the number, or the fixed-file slot, after the close.
     *
     * @param r the registration of the channel about to close
     */
    void submitBeforeClose(RingwireIoRegistration r) {
        submitBeforeClose();
        if (r.hasUnsubmittedSqe()) {
            ring.submitAndWait(0, -1);
            if (r.hasUnsubmittedSqe()) {
                int n = sq.disarmUnconsumed(0xFFFF_FFFF_0000_0000L, (long) r.id() << 32);
                logger.debug("{}: the kernel took no SQE before a close; {} of {} made to fail (EBADF)", executor, n,
                    r.handle());
            }
        }
    }

    /** Submits what waits in the SQ, if anything does (see {@link #submitBeforeClose(RingwireIoRegistration)}). */
    void submitBeforeClose() {
        if (sq.unconsumed() > 0) {
            counters.closeSubmits++;
            ring.submit();
        }
    }

    /**
     * Submits what waits in the SQ now, for a connect: its SYN leaves inside {@code connect()}, as connect(2) sends it
     * on Netty's NIO and epoll, not at the loop's next enter. A task that calls connect and then holds the loop until
     * the peer has accepted (Netty's SocketChannelEOFTest waits for the peer to write and shut its output down) would
     * otherwise wait for a SYN that its own wait holds back.
     */
    void submitNow() {
        if (sq.unconsumed() > 0) {
            ring.submit();
        }
    }

    /** @return the ring's {@code IORING_SETUP_*} flags, as the kernel accepted them */
    int setupFlags() {
        return ring.setupFlags();
    }

    /** @return whether the ring fd is registered with the loop's thread */
    boolean ringFdRegistered() {
        return ring.isRingFdRegistered();
    }

    /** @return the loop's fixed-file table */
    FixedFileTable fileTable() {
        return fileTable;
    }

    /** @return the loop's moves of direct descriptors to and from other loops */
    SlotMoves slotMoves() {
        return slotMoves;
    }

    /** @return the loop's synchronous calls (an SQE submitted and its result waited for) */
    SyncCalls syncCalls() {
        return syncCalls;
    }

    /** @return the loop's native scratch space for this iteration's SQEs */
    Scratch scratch() {
        return scratch;
    }

    /** @return the loop's gatherer of flushed buffers into iovecs, shared by its stream channels */
    WriteGather writeGather() {
        return writeGather;
    }

    @Override
    public String toString() {
        return "RingwireIoHandler[" + ring + "]";
    }
}
