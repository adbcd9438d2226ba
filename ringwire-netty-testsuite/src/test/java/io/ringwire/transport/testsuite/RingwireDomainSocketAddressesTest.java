package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;
import org.junit.jupiter.api.AfterEach;

import java.net.SocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Netty's SocketAddressesTest over Unix domain sockets. */
class RingwireDomainSocketAddressesTest extends SocketAddressesTest {
    private final SocketFiles socketFiles = new SocketFiles();

    @Override
    protected SocketAddress newSocketAddress() {
        return socketFiles.newAddress(); // the server's and the client's own local path
    }

    @AfterEach
    void removeSocketFiles() throws java.io.IOException {
        socketFiles.deleteAll();
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
