package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.test.core.Checkpoint;
import io.vertx.test.core.ProvidedBy;
import io.vertx.tests.net.NetTest;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Ignore;
import org.junit.Test;

import java.net.SocketException;

/** Vert.x's NetTest (TCP servers and clients, TLS, proxies, half-close, back-pressure) on Ringwire. */
public class RingwireNetTest extends NetTest {
    @BeforeClass
    public static void ownNetworkOnly() throws SocketException {
        OnRingwire.requireOwnNetwork();
    }

    /** NetTest's provider (its host names resolved to loopback), with Ringwire as the transport. */
    public static final class OnRingwireProvider extends NetTest.Provider {
        @Override
        public Vertx call() {
            return OnRingwire.build(options());
        }
    }

    /*
     * Three of NetTest's tests are decided by a race or a timing, not by the transport; each failed here now and
     * then (3, 1 and 1 times in 30 runs of the class), and a trace of every connection showed why (README, "Vert.x's
     * own tests on Ringwire").
     */

    @Ignore("racy: it sets its handlers in the connect's callback, which the test thread registers after connect()"
        + " returns; when the server's 72 bytes and its FIN arrive first (the whole connection lived 1 ms in a trace),"
        + " Vert.x drops the bytes, having no handler, and the close comes before the end handler is set. Vert.x skips"
        + " it on its own io_uring transport as an intermittent failure")
    @Test
    @Override
    public void testHalfCloseCallsEndHandlerAfterBuffersAreDelivered(Checkpoint checkpoint) {
    }

    @Ignore("racy in the same way: the client's handler is set in the connect's callback, and the server's 1 MiB and"
        + " its FIN can all arrive before it (a traced connection took them in 73 receives and 5 ms); Vert.x drops"
        + " bytes that come before a handler. The transport's part, the allocator's guess growing within a batch, is"
        + " ReceiveBufferSizeTest's")
    @Test
    @Override
    public void testEndHandlerCalledAfterAllEmissions() {
    }

    @Ignore("decided by a timing: it expects a 16 MiB file read with a 1 ms pause per buffer to take over 200 ms,"
        + " which a faster stream does not (it failed on Vert.x's NIO transport here too; Vert.x skips its HTTP twin"
        + " on native transports)")
    @Test
    @Override
    public void testServerWithIdleTimeoutSendChunkedFile(Checkpoint checkpoint) {
    }

    @Before
    @Override
    public void setUp(@ProvidedBy(OnRingwireProvider.class) Vertx vertx) throws Exception {
        super.setUp(OnRingwire.checked(vertx));
    }
}
