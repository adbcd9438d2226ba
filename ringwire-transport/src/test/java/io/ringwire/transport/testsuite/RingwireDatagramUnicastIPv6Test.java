package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.DatagramUnicastIPv6Test;

import java.util.List;

/** Netty's DatagramUnicastIPv6Test with Ringwire's datagram channel on one or both ends. */
class RingwireDatagramUnicastIPv6Test extends DatagramUnicastIPv6Test {
    @Override
    protected List<BootstrapComboFactory<Bootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.datagram(socketInternetProtocalFamily());
    }
}
