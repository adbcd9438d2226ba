package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketHalfClosedTest;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

class RingwireSocketHalfClosedTest extends SocketHalfClosedTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.socket();
    }

    /**
     * The test's handler blocks the event loop in channelActive until the peer has read a write flushed just
     * before, which only a transport that writes synchronously inside flush() can satisfy; Ringwire gathers
     * flushes and submits them at the loop's next io_uring_enter, so the loop it blocks is the one that would send
     * the bytes. Netty disables the same test for its io_uring transport.
     */
    /**
     * Netty's test, with a hang guard that a busy machine cannot trip. It reads 16 KiB one byte at a time (a receive
     * allocator of 1-byte buffers, two reads per read loop, and with auto-read off a read() after each), four times
     * per pairing over eight pairings: some 65,000 one-byte receives, each a loop iteration. That took 14.8 s of the
     * class's 20 s timeout on a two-core machine running other modules' tests beside it, and 20.1 s once. What it
     * asserts is unchanged; the timeout only stops a hang.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testAllDataReadClosure(TestInfo testInfo) throws Throwable {
        super.testAllDataReadClosure(testInfo);
    }

    /** The same one-byte reads after a half-closure (9.5 s of the 20 s on the same machine): the same hang guard. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testAllDataReadAfterHalfClosure(TestInfo testInfo) throws Throwable {
        super.testAllDataReadAfterHalfClosure(testInfo);
    }

    @Test
    @Disabled("blocks the event loop waiting for a synchronous flush; Netty disables it for io_uring too")
    @Override
    public void testAutoCloseFalseDoesShutdownOutput(TestInfo testInfo) {
    }
}
