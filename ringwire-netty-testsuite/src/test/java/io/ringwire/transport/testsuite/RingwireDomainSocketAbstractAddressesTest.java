package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;

import java.net.SocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Netty's SocketAddressesTest over Unix domain sockets with abstract names. */
class RingwireDomainSocketAbstractAddressesTest extends SocketAddressesTest {
    @Override
    protected SocketAddress newSocketAddress() {
        return RingwireSocketTestPermutation.newAbstractDomainSocketAddress();
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.domainSocket();
    }

    @Override
    protected void assertAddress(SocketAddress address) {
        assertNotNull(((DomainSocketAddress) address).path());
    }
}
