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

    /** Run where Ringwire sends: see {@link EmptyDatagramSenders}. */
    @Override
    public void testSendEmptyDatagramsInOneFlush(Bootstrap sb, Bootstrap cb) throws Throwable {
        if (EmptyDatagramSenders.ringwire(cb)) {
            super.testSendEmptyDatagramsInOneFlush(sb, cb);
        }
    }
}
