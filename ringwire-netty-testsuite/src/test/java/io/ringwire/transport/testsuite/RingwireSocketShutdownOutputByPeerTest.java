package io.ringwire.transport.testsuite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketShutdownOutputByPeerTest;

import java.util.List;

class RingwireSocketShutdownOutputByPeerTest extends SocketShutdownOutputByPeerTest {
    @Override
    protected List<BootstrapFactory<ServerBootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.serverSocket();
    }
}
