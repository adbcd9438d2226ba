package io.ringwire.uring;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.ringwire.uring.IoUringConstants.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class IoUringTest {
    @BeforeAll
    static void requireIoUring() {
        assumeTrue(IoUringProbe.get().isAvailable(), () -> "io_uring unavailable: "
            + IoUringProbe.get().unavailabilityCause());
    }

    @Test
    void shouldRoundTripNop() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            ring.sq().prepNop(42);
            assertEquals(1, ring.sq().pending());
            Cqes cqes = new Cqes(ring);
            List<Cqes.Cqe> seen = cqes.awaitTotal(1);
            assertEquals(42, seen.get(0).userData());
            assertEquals(0, seen.get(0).res());
            assertEquals(0, ring.sq().pending());
            assertTrue(ring.enterCount() >= 1);
            assertEquals(1, ring.sqesSubmitted());
        }
    }

    @Test
    void shouldWriteEveryFieldOfAReusedSqeAndNothingElse() throws Exception {
        try (IoUring ring = IoUring.builder().entries(1).build()) {
            SubmissionQueue sq = ring.sq();
            // dirty the only slot in every field, then give it back unsubmitted
            long dirty = sq.prepRaw((byte) 0x7f, 0x01020304, -1L, -1, -1L, -1L);
            sq.addFlags(dirty, (byte) 0xff);
            sq.addIoprio(dirty, (short) -1);
            sq.setOpFlags(dirty, -1);
            sq.setBufIndex(dirty, (short) -1);
            assertEquals(1, sq.discardUnpublished());

            long sqe = sq.prepRecvMultishot(7, (short) 3, 0x40, 0x1122334455667788L);
            assertEquals(dirty, sqe, "the same slot");
            assertEquals((IORING_OP_RECV & 0xffL) | ((long) IOSQE_BUFFER_SELECT << 8)
                | ((long) IORING_RECV_MULTISHOT << 16) | (7L << 32), sq.peekLong(sqe, IoUringSqe.OPCODE_OFFSET));
            assertEquals(0L, sq.peekLong(sqe, IoUringSqe.OFF_OFFSET));
            assertEquals(0L, sq.peekLong(sqe, IoUringSqe.ADDR_OFFSET));
            assertEquals(0x40L << 32, sq.peekLong(sqe, IoUringSqe.LEN_OFFSET), "len 0, msg_flags");
            assertEquals(0x1122334455667788L, sq.peekLong(sqe, IoUringSqe.USER_DATA_OFFSET));
            assertEquals(3L, sq.peekLong(sqe, IoUringSqe.BUF_INDEX_OFFSET), "buf_group, no personality or file");
            assertEquals(0L, sq.peekLong(sqe, IoUringSqe.ADDR3_OFFSET));
            assertEquals(0L, sq.peekLong(sqe, IoUringSqe.ADDR3_OFFSET + 8));

            sq.discardUnpublished();
            long nop = sq.nextSqe();
            for (int offset = 0; offset < IoUringSqe.SIZE; offset += 8) {
                assertEquals(0L, sq.peekLong(nop, offset), "nextSqe zeroes offset " + offset);
            }
            sq.discardUnpublished();
        }
    }

    @Test
    void shouldGrantBestSetupFlagsOnThisKernel() throws Exception {
        IoUringProbe probe = IoUringProbe.get();
        assumeTrue(probe.isSetupFlagSupported(IORING_SETUP_DEFER_TASKRUN));
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            int f = ring.setupFlags();
            assertTrue((f & IORING_SETUP_SINGLE_ISSUER) != 0, IoUringProbe.setupFlagNames(f));
            assertTrue((f & IORING_SETUP_DEFER_TASKRUN) != 0, IoUringProbe.setupFlagNames(f));
            assertEquals(List.of(), ring.missingSetupFlags());
        }
    }

    @Test
    void shouldFallBackToCoopTaskrunWhenDeferIsNotWanted() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).deferTaskrun(false).build()) {
            assertTrue((ring.setupFlags() & IORING_SETUP_COOP_TASKRUN) != 0);
            assertEquals(0, ring.setupFlags() & IORING_SETUP_DEFER_TASKRUN);
        }
    }

    @Test
    void shouldEnableDisabledRingFromOwnerThread() throws Exception {
        IoUring[] created = new IoUring[1];
        Thread creator = new Thread(() -> {
            try {
                created[0] = IoUring.builder().entries(8).startDisabled(true).build();
            } catch (NativeIoException e) {
                throw new IllegalStateException(e);
            }
        });
        creator.start();
        creator.join();
        try (IoUring ring = created[0]) {
            assertNotEquals(0, ring.setupFlags() & IORING_SETUP_R_DISABLED);
            ring.sq().prepNop(1);
            assertEquals(-Errno.EBADFD, ring.submit(), "a disabled ring refuses submissions");
            ring.enable();
            assertTrue(ring.registerRingFd());
            ring.sq().prepNop(2);
            List<Cqes.Cqe> seen = new Cqes(ring).awaitTotal(2);
            assertEquals(1, seen.get(0).userData(), "the refused SQE was kept, not lost");
            assertEquals(2, seen.get(1).userData());
        }
    }

    @Test
    void shouldSubmitEverythingInOneEnter() throws Exception {
        try (IoUring ring = IoUring.builder().entries(64).build()) {
            for (int i = 0; i < 50; i++) {
                ring.sq().prepNop(i);
            }
            long before = ring.enterCount();
            assertEquals(50, ring.submitAndWait(50, -1));
            assertEquals(before + 1, ring.enterCount());
            Cqes cqes = new Cqes(ring);
            assertEquals(50, ring.cq().drain(cqes, Integer.MAX_VALUE));
            for (int i = 0; i < 50; i++) {
                assertEquals(i, cqes.seen.get(i).userData());
            }
        }
    }

    @Test
    void postedResultSeesOnlyCompletionsNotYetHandedOut() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            for (int i = 1; i <= 3; i++) {
                ring.sq().prepNop(i);
            }
            assertEquals(3, ring.submitAndWait(3, -1));
            CompletionQueue cq = ring.cq();
            assertEquals(0, cq.postedResult(2, 0), "posted, none handed out yet");
            List<Integer> lookups = new java.util.ArrayList<>();
            cq.drain((userData, res, flags) -> {
                if (userData == 2) {
                    lookups.add(cq.postedResult(1, 0)); // handed out before
                    lookups.add(cq.postedResult(2, 0)); // the one being handled
                    lookups.add(cq.postedResult(3, 0)); // ahead
                    lookups.add(cq.postedResult(3, IORING_CQE_F_MORE)); // ahead, flags not skipped
                    lookups.add(cq.postedResult(4, 0)); // never submitted
                }
            }, Integer.MAX_VALUE);
            assertEquals(List.of(Integer.MIN_VALUE, Integer.MIN_VALUE, 0, 0, Integer.MIN_VALUE), lookups);
            assertEquals(Integer.MIN_VALUE, cq.postedResult(3, 0), "every CQE handed out");
        }
    }

    @Test
    void handOverInsideADrainTakesTheRestAndEndsTheDrain() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            for (int i = 1; i <= 4; i++) {
                ring.sq().prepNop(i);
            }
            assertEquals(4, ring.submitAndWait(4, -1));
            CompletionQueue cq = ring.cq();
            List<Long> drained = new java.util.ArrayList<>();
            Cqes taken = new Cqes(ring);
            int[] handedOver = new int[1];
            int n = cq.drain((userData, res, flags) -> {
                drained.add(userData);
                if (userData == 2) {
                    handedOver[0] = cq.handOver(taken);
                    assertEquals(0, cq.ready(), "their slots are free at once");
                    assertEquals(Integer.MIN_VALUE, cq.postedResult(3, 0), "handed over, not ahead in the CQ");
                }
            }, Integer.MAX_VALUE);
            assertEquals(2, n, "the drain handed out two, then stopped");
            assertEquals(List.of(1L, 2L), drained);
            assertEquals(2, handedOver[0]);
            assertEquals(List.of(3L, 4L), taken.seen.stream().map(Cqes.Cqe::userData).toList());
            ring.sq().prepNop(5);
            assertEquals(1, ring.submitAndWait(1, -1));
            Cqes after = new Cqes(ring);
            assertEquals(1, cq.drain(after, Integer.MAX_VALUE), "the head was left where handOver put it");
            assertEquals(5, after.seen.get(0).userData());
        }
    }

    @Test
    void anSqeIsConsumedOnlyOnceTheKernelsHeadPassesItNotWhenAnEnterFails() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).startDisabled(true).build()) {
            SubmissionQueue sq = ring.sq();
            int at = sq.position();
            sq.prepNop(1);
            long enters = ring.enterCount();
            assertEquals(-Errno.EBADFD, ring.submit(), "a disabled ring refuses the enter");
            assertEquals(enters + 1, ring.enterCount(), "the failed enter is counted as an enter");
            assertFalse(sq.consumed(at), "the refused enter consumed nothing");
            ring.enable();
            assertEquals(1, ring.submit());
            assertTrue(sq.consumed(at));
        }
    }

    @Test
    void aDisarmedSqeFailsWithEbadfInsteadOfActingOnItsFd() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).startDisabled(true).build();
             EventFd e = EventFd.create();
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            ring.enable();
            e.signal(); // a READ of it would complete at once, with 8 bytes
            java.lang.foreign.MemorySegment buf = arena.allocate(8);
            SubmissionQueue sq = ring.sq();
            sq.prepRead(e.fd(), buf.address(), 8, 0, 0x7_0000_0001L);
            sq.prepRead(e.fd(), buf.address(), 8, 0, 0x8_0000_0001L);
            assertEquals(1, sq.disarmUnconsumed(0xFFFF_FFFF_0000_0000L, 0x7_0000_0000L), "only the matching SQE");
            assertEquals(2, ring.submitAndWait(2, -1));
            Cqes cqes = new Cqes(ring);
            ring.cq().drain(cqes, Integer.MAX_VALUE);
            assertEquals(-Errno.EBADF, cqes.seen.get(0).res(), "the disarmed READ");
            assertEquals(8, cqes.seen.get(1).res(), "the other READ took the eventfd's count");
        }
    }

    @Test
    void newestPostedResultSeesTheSameCompletionsFromTheTail() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            for (int i = 1; i <= 3; i++) {
                ring.sq().prepNop(i);
            }
            assertEquals(3, ring.submitAndWait(3, -1));
            CompletionQueue cq = ring.cq();
            assertEquals(0, cq.newestPostedResult(1), "posted, none handed out yet (the oldest)");
            List<Integer> lookups = new java.util.ArrayList<>();
            cq.drain((userData, res, flags) -> {
                if (userData == 2) {
                    lookups.add(cq.newestPostedResult(1)); // handed out before
                    lookups.add(cq.newestPostedResult(2)); // the one being handled
                    lookups.add(cq.newestPostedResult(3)); // ahead
                    lookups.add(cq.newestPostedResult(4)); // never submitted
                }
            }, Integer.MAX_VALUE);
            assertEquals(List.of(Integer.MIN_VALUE, Integer.MIN_VALUE, 0, Integer.MIN_VALUE), lookups);
            assertEquals(Integer.MIN_VALUE, cq.newestPostedResult(3), "every CQE handed out");
        }
    }

    @Test
    void shouldSubmitWhenQueueIsFull() throws Exception {
        try (IoUring ring = IoUring.builder().entries(4).cqEntries(64).build()) {
            for (int i = 0; i < 10; i++) {
                ring.sq().prepNop(i);
            }
            assertTrue(ring.fullSubmitCount() >= 2);
            assertEquals(10, new Cqes(ring).awaitTotal(10).size());
        }
    }

    @Test
    void shouldFireTimeout() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build();
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            var ts = arena.allocate(KernelTimespec.LAYOUT);
            KernelTimespec.set(ts, 20_000_000L);
            ring.sq().prepTimeout(ts.address(), 0, 0, 7);
            Cqes.Cqe c = new Cqes(ring).awaitUserData(7);
            assertEquals(-Errno.ETIME, c.res(), Errno.name(c.res()));
        }
    }

    @Test
    void shouldReturnEtimeWhenWaitTimesOut() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build()) {
            assertEquals(-Errno.ETIME, ring.submitAndWait(1, 5_000_000L));
        }
    }

    @Test
    void shouldCancelPendingOperation() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build();
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            var ts = arena.allocate(KernelTimespec.LAYOUT);
            KernelTimespec.set(ts, 60_000_000_000L); // a minute: only the cancel can end it
            ring.sq().prepTimeout(ts.address(), 0, 0, 1);
            ring.submit();
            ring.sq().prepCancel(1, 0, 2);
            Cqes cqes = new Cqes(ring);
            Cqes.Cqe cancelled = cqes.awaitUserData(1);
            Cqes.Cqe cancel = cqes.awaitUserData(2);
            assertEquals(-Errno.ECANCELED, cancelled.res(), Errno.name(cancelled.res()));
            assertEquals(0, cancel.res(), Errno.name(cancel.res()));
        }
    }

    @Test
    void shouldWakeFromAnotherThread() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).build(); EventFd wakeup = EventFd.create()) {
            wakeup.prepRead(ring.sq(), 99);
            ring.submit();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waker = new Thread(() -> {
                try {
                    waiting.await();
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                wakeup.signal();
            });
            waker.start();
            waiting.countDown();
            int ret = ring.submitAndWait(1, TimeUnit.SECONDS.toNanos(30)); // blocks until the eventfd READ completes
            assertTrue(ret >= 0, () -> "enter: " + Errno.name(ret));
            Cqes cqes = new Cqes(ring);
            ring.cq().drain(cqes, 8);
            assertEquals(1, cqes.seen.size(), "woken by the READ's CQE, not by the timeout");
            assertEquals(99, cqes.seen.get(0).userData());
            assertEquals(8, cqes.seen.get(0).res());
            waker.join();
        }
    }

    @Test
    void shouldCloseTwiceHarmlesslyAndReleaseEverything() throws Exception {
        long fds = FdCount.now();
        long memory = NativeMemory.heldBytes();
        IoUring ring = IoUring.builder().entries(32).cqEntries(128).build();
        BufferRing buffers = BufferRing.register(ring, (short) 3, 8, 256);
        assertTrue(NativeMemory.heldBytes() > memory);
        assertEquals(fds + 1, FdCount.now());
        buffers.close();
        buffers.close();
        ring.close();
        ring.close();
        assertEquals(fds, FdCount.now());
        assertEquals(memory, NativeMemory.heldBytes());
    }

    @Test
    void shouldRejectNonsenseSettings() {
        assertThrows(IllegalArgumentException.class, () -> IoUring.builder().entries(0));
        assertThrows(IllegalArgumentException.class, () -> IoUring.builder().cqEntries(-1));
    }
}
