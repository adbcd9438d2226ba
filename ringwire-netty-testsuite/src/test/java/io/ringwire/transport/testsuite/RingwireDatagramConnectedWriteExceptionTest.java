package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.DatagramConnectedWriteExceptionTest;

import java.util.List;

/** Netty's DatagramConnectedWriteExceptionTest with Ringwire's datagram channel. */
class RingwireDatagramConnectedWriteExceptionTest extends DatagramConnectedWriteExceptionTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.datagramSocket();
    }
}
