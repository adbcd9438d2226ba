package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.TrafficShapingHandlerTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Netty's traffic-shaping test on every Ringwire pairing, direct descriptors included. Each test runs all its pairings
 * inside one time limit, which Netty sets at 10 s for the three its own transports run; the shaping's pauses alone take
 * about 2 s a pairing here, so with Ringwire's eight pairings on a shared machine each test gets 120 s. The assertions
 * are Netty's, unchanged.
 */
class RingwireTrafficShapingHandlerTest extends TrafficShapingHandlerTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.socket();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testNoTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testNoTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testWriteTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testWriteTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testReadTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testReadTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testWrite1TrafficShapping(TestInfo testInfo) throws Throwable {
        super.testWrite1TrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testRead1TrafficShapping(TestInfo testInfo) throws Throwable {
        super.testRead1TrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testWriteGlobalTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testWriteGlobalTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testReadGlobalTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testReadGlobalTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testAutoReadTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testAutoReadTrafficShapping(testInfo);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testAutoReadGlobalTrafficShapping(TestInfo testInfo) throws Throwable {
        super.testAutoReadGlobalTrafficShapping(testInfo);
    }
}
