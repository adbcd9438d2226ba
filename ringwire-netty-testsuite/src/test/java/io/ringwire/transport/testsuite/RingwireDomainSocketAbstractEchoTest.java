package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketEchoTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's SocketEchoTest over Unix domain sockets with abstract names. */
class RingwireDomainSocketAbstractEchoTest extends SocketEchoTest {
    @Override
    protected SocketAddress newSocketAddress() {
        return RingwireSocketTestPermutation.newAbstractDomainSocketAddress();
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.domainSocket();
    }
}
