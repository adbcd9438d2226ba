package io.ringwire.transport.testsuite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.ServerSocketSuspendTest;

import java.util.List;

/**
 * Netty's accept-suspension test (disabled upstream: it asserts a wall-clock duration);
 * {@code io.ringwire.transport.AcceptSuspensionTest} checks the same behaviour by what is accepted.
 */
class RingwireServerSocketSuspendTest extends ServerSocketSuspendTest {
    @Override
    protected List<BootstrapFactory<ServerBootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.serverSocket();
    }
}
