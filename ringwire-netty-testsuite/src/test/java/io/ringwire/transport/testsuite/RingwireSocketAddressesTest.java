package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingwireSocketAddressesTest extends SocketAddressesTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.socket();
    }

    @Override
    protected void assertAddress(SocketAddress address) {
        assertTrue(address instanceof InetSocketAddress, () -> "not an inet address: " + address);
        assertNotEquals(0, ((InetSocketAddress) address).getPort());
    }
}
