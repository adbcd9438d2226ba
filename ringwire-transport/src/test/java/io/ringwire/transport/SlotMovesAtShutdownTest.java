package io.ringwire.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.ringwire.uring.IoUring;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringProbe;
import io.ringwire.uring.SocketConstants;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Moves of a direct descriptor from one loop's table to another's (MSG_RING) when one of the two loops ends: the move
 * is completed either way, the sender told and the receiver's expectation answered (a channel's registration
 * promise hangs on it), and a move never lands in a ring that took over the fd number of the target's closed one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlotMovesAtShutdownTest {
    private static final RingwireIoHandlerConfig DIRECT = RingwireIoHandlerConfig.builder().directDescriptors(true)
        .build();

    @BeforeAll
    static void directDescriptors() {
        assumeTrue(IoUringProbe.get().isDirectDescriptorsSupported(),
            "kernel lacks what direct descriptors need: " + IoUringProbe.get().missingForDirectDescriptors());
    }

    /** @return the handler of {@code group}'s one loop (a channel registered to find it, closed again) */
    private static RingwireIoHandler handlerOf(EventLoopGroup group) throws Exception {
        RingwireServerSocketChannel ch = new RingwireServerSocketChannel();
        group.register(ch).sync();
        RingwireIoHandler h = ch.registration.handler();
        ch.close().sync();
        return h;
    }

    private static int ringFd(RingwireIoHandler h) throws Exception {
        java.lang.reflect.Field f = RingwireIoHandler.class.getDeclaredField("ring");
        f.setAccessible(true);
        return ((IoUring) f.get(h)).fd();
    }

    /** @return a new socket in a slot of {@code h}'s table (SOCKET), on its loop */
    private static int newSlot(EventLoop loop, RingwireIoHandler h) throws Exception {
        return loop.submit(() -> {
            int slot = h.syncCalls().call(IoUringConstants.IORING_OP_SOCKET, (q, ud) -> q.prepSocketDirect(
                SocketConstants.AF_INET, SocketConstants.SOCK_STREAM | SocketConstants.SOCK_NONBLOCK, 0, -1, ud));
            assertTrue(slot >= 0, "SOCKET into a slot: " + slot);
            h.fileTable().slotTaken();
            return slot;
        }).get();
    }

    private static <T> T within10s(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            return fail(what + " never completed");
        }
    }

    /**
     * The sending loop found its SQ full (the move waits for its next iteration) and then ended before that
     * iteration: the move must still complete, sent or failed, and the receiver hear of it.
     */
    @Test
    void aMoveWaitingForTheSendersSqCompletesWhenTheSenderEnds() throws Exception {
        EventLoopGroup a = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
        EventLoopGroup b = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
        try {
            EventLoop loopA = a.next();
            EventLoop loopB = b.next();
            RingwireIoHandler hA = handlerOf(a);
            RingwireIoHandler hB = handlerOf(b);
            int slot = newSlot(loopA, hA);
            CompletableFuture<Integer> arrived = new CompletableFuture<>();
            long targetUserData = loopB.submit(() -> hB.slotMoves().expectSlot(arrived::complete)).get();
            CompletableFuture<Integer> sent = new CompletableFuture<>();
            loopA.submit(() -> {
                TestHooks.refuseSqes(hA, 1); // the SQ refuses the MSG_RING: it waits for the loop's next iteration
                hA.slotMoves().sendSlot(slot, hB, targetUserData, res -> {
                    sent.complete(res);
                    if (res < 0) {
                        loopB.execute(() -> hB.slotMoves().slotNotComing(targetUserData, res));
                    }
                });
                a.shutdownGracefully(0, 0, TimeUnit.SECONDS); // ... which never comes
            }).get();
            int sentRes = within10s(sent, "the sender's MSG_RING");
            int arrivedRes = within10s(arrived, "the receiver's expectation");
            if (arrivedRes >= 0) {
                assertEquals(arrivedRes, sentRes, "the slot it arrived in");
                loopB.submit(() -> hB.fileTable().closeSlot(arrivedRes)).get();
            }
        } finally {
            a.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            b.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * The target loop ended, and a ring made since got its ring's fd number: a move the sender makes then must fail,
     * not put the socket into the new ring, whose loop may be expecting a move of its own under the same id.
     */
    @Test
    void aMoveToAnEndedLoopDoesNotLandInTheRingThatGotItsFdNumber() throws Exception {
        EventLoopGroup a = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
        EventLoopGroup b = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
        EventLoopGroup c = null;
        try {
            EventLoop loopA = a.next();
            RingwireIoHandler hA = handlerOf(a);
            RingwireIoHandler hB = handlerOf(b);
            int slot = newSlot(loopA, hA);
            CompletableFuture<Integer> arrivedB = new CompletableFuture<>();
            long targetUserData = b.next().submit(() -> hB.slotMoves().expectSlot(arrivedB::complete)).get();
            int fdB = ringFd(hB);
            b.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
            assertTrue(within10s(arrivedB, "B's expectation") < 0, "B ended before the move: its expectation failed");
            c = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory(DIRECT));
            RingwireIoHandler hC = handlerOf(c);
            assumeTrue(ringFd(hC) == fdB, "the new ring did not get the ended one's fd number");
            CompletableFuture<Integer> arrivedC = new CompletableFuture<>();
            long expectedByC = c.next().submit(() -> hC.slotMoves().expectSlot(arrivedC::complete)).get();
            assertEquals(targetUserData, expectedByC, "C expects a move under the same user_data");
            CompletableFuture<Integer> sent = new CompletableFuture<>();
            loopA.submit(() -> hA.slotMoves().sendSlot(slot, hB, targetUserData, sent::complete)).get();
            int sentRes = within10s(sent, "the sender's MSG_RING");
            Integer landed = arrivedC.getNow(null);
            if (landed == null) {
                c.next().submit(() -> { }).get(); // an iteration of C: a CQE posted to it is handed out
                landed = arrivedC.getNow(null);
            }
            if (landed != null && landed >= 0) {
                int s = landed;
                c.next().submit(() -> hC.fileTable().closeSlot(s)).get();
            }
            assertEquals(null, landed, "C's own expectation answered by the move meant for B (its slot)");
            assertTrue(sentRes < 0, "the move to the ended loop failed: " + sentRes);
        } finally {
            a.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            b.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            if (c != null) {
                c.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        }
    }
}
