package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketShutdownOutputBySelfTest;

import java.util.List;

class RingwireSocketShutdownOutputBySelfTest extends SocketShutdownOutputBySelfTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.clientSocket();
    }
}
