package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelEOFTest;

import java.util.List;

/**
 * Netty's SocketChannelEOFTest: a client with autoRead off reads everything a peer wrote before it shut its output
 * down, also when the bytes and the end of input are already there when the connect completes.
 */
class RingwireSocketChannelEOFTest extends SocketChannelEOFTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.clientSocket();
    }
}
