package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.AbstractSocketReuseFdTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's AbstractSocketReuseFdTest over Unix domain sockets, as Netty's epoll module runs it: many connections
 * opened and closed at once, so descriptor numbers are reused while operations on their former owners end.
 */
class RingwireDomainSocketReuseFdTest extends AbstractSocketReuseFdTest {
    @Override
    protected SocketAddress newSocketAddress() {
        return RingwireSocketTestPermutation.newDomainSocketAddress();
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.domainSocket();
    }
}
