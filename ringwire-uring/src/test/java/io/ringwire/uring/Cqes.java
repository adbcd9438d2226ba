package io.ringwire.uring;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;

/** Test helper: collects CQEs as records and waits for them with a deadline (a hang fails, timing never passes). */
final class Cqes implements CompletionHandler {
    record Cqe(long userData, int res, int flags) {
        boolean more() {
            return IoUringCqe.hasMore(flags);
        }

        int bufferId() {
            return IoUringCqe.bufferId(flags);
        }

        boolean hasBuffer() {
            return IoUringCqe.hasBuffer(flags);
        }
    }

    final List<Cqe> seen = new ArrayList<>();
    private final IoUring ring;

    Cqes(IoUring ring) {
        this.ring = ring;
    }

    @Override
    public void complete(long userData, int res, int flags) {
        seen.add(new Cqe(userData, res, flags));
    }

    /** Submits what is queued and reaps until at least {@code n} CQEs have been seen in total. */
    List<Cqe> awaitTotal(int n) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (seen.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("waited 10 s for " + n + " CQEs, saw " + seen.size() + ": " + seen);
            }
            int ret = ring.submitAndWait(1, Math.min(left, 200_000_000L));
            if (ret < 0 && ret != -Errno.ETIME && ret != -Errno.EINTR) {
                fail("io_uring_enter failed: " + Errno.name(ret));
            }
            ring.cq().drain(this, Integer.MAX_VALUE);
        }
        return seen;
    }

    /** Submits and reaps until a CQE with this user_data arrives. */
    Cqe awaitUserData(long userData) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (;;) {
            for (Cqe c : seen) {
                if (c.userData() == userData) {
                    seen.remove(c);
                    return c;
                }
            }
            if (System.nanoTime() > deadline) {
                fail("waited 10 s for user_data " + userData + ", saw " + seen);
            }
            ring.submitAndWait(1, 200_000_000L);
            ring.cq().drain(this, Integer.MAX_VALUE);
        }
    }
}
