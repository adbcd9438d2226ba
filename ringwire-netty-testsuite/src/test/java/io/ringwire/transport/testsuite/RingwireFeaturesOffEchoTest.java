package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketEchoTest;

import java.util.List;

/** Netty's echo tests with each optional io_uring feature of Ringwire turned off in turn. */
class RingwireFeaturesOffEchoTest extends SocketEchoTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FeaturesOffPermutation.socket();
    }
}
