package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RLIMIT_NOFILE read and raised through prlimit; never lowered. */
class OpenFileLimitTest {
    @Test
    void readsTheLimitsInForce() throws NativeIoException {
        OpenFileLimit now = OpenFileLimit.current();
        assertTrue(now.soft() > 0 && now.soft() <= now.hard(), now::toString);
    }

    @Test
    void raisingToWhatIsThereChangesNothing() throws NativeIoException {
        OpenFileLimit now = OpenFileLimit.current();
        assertEquals(now, OpenFileLimit.raise(now.soft()));
        assertEquals(now, OpenFileLimit.raise(1));
    }

    @Test
    void raisingGoesAtLeastToTheHardLimitAndNeverLowersIt() throws NativeIoException {
        OpenFileLimit now = OpenFileLimit.current();
        OpenFileLimit raised = OpenFileLimit.raise(now.hard() + 1000);
        // with CAP_SYS_RESOURCE the hard limit moves too; without it, the soft one reaches the hard one
        assertTrue(raised.soft() >= now.hard() || raised.soft() == raised.hard(), raised::toString);
        assertTrue(raised.hard() >= now.hard(), raised::toString);
    }
}
