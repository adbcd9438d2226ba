package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;

import java.util.List;

class RingwireSocketChannelNotYetConnectedTest extends SocketChannelNotYetConnectedTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.clientSocket();
    }
}
