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

    /** Run where Ringwire sends: see {@link EmptyDatagramSenders}. */
    @Override
    public void testSendEmptyDatagramsInOneFlush(Bootstrap sb, Bootstrap cb) throws Throwable {
        if (EmptyDatagramSenders.ringwire(cb)) {
            super.testSendEmptyDatagramsInOneFlush(sb, cb);
        }
    }
}
