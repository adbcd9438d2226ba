package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketEchoTest;
import io.ringwire.transport.ZeroCopyHooks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;

/** Netty's SocketEchoTest with every write of Ringwire's a zero-copy send, kept on although loopback copies. */
class RingwireZeroCopyEchoTest extends SocketEchoTest {
    @BeforeAll
    static void keepZeroCopy() {
        ZeroCopyHooks.keepZeroCopyWhenCopied(true);
    }

    @AfterAll
    static void defaults() {
        ZeroCopyHooks.keepZeroCopyWhenCopied(false);
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FeaturesOffPermutation.zeroCopy();
    }
}
