package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAutoReadTest;

import java.util.List;

/** Netty's autoRead tests (read() on demand) with each optional io_uring feature of Ringwire turned off in turn. */
class RingwireFeaturesOffAutoReadTest extends SocketAutoReadTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FeaturesOffPermutation.socket();
    }
}
