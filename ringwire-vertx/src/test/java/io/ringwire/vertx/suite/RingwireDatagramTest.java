package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tests.datagram.DatagramTest;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's DatagramTest (UDP sockets: send, listen, broadcast, multicast) on Ringwire. */
public class RingwireDatagramTest extends DatagramTest {
    @BeforeClass
    public static void ownNetworkOnly() throws SocketException {
        OnRingwire.requireOwnNetwork();
    }

    @Override
    protected VertxBuilder createVertxBuilder(VertxOptions options) {
        return OnRingwire.transport(super.createVertxBuilder(options));
    }

    @Override
    protected Vertx createVertx(VertxOptions options) {
        return OnRingwire.checked(super.createVertx(options));
    }
}
