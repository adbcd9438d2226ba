package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.DatagramConnectNotExistsTest;

import java.util.List;

/** Netty's DatagramConnectNotExistsTest with Ringwire's datagram channel. */
class RingwireDatagramConnectNotExistsTest extends DatagramConnectNotExistsTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.datagramSocket();
    }
}
