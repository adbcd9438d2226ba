package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.DatagramUnicastInetTest;

import java.util.List;

/** Netty's DatagramUnicastInetTest with Ringwire's datagram channel on one or both ends. */
class RingwireDatagramUnicastInetTest extends DatagramUnicastInetTest {
    @Override
    protected List<BootstrapComboFactory<Bootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.datagram(socketInternetProtocalFamily());
    }
}
