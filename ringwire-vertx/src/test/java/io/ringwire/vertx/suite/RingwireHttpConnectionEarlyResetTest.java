package io.ringwire.vertx.suite;

import io.vertx.tests.http.HttpConnectionEarlyResetTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's HttpConnectionEarlyResetTest (a connection reset before the server's handler runs) on Ringwire. */
public class RingwireHttpConnectionEarlyResetTest extends HttpConnectionEarlyResetTest {
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
