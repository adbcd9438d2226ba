package io.ringwire.vertx.suite;

import io.vertx.tests.http.HttpServerCloseSequenceTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's HttpServerCloseSequenceTest (the order of a server's close with connections open) on Ringwire. */
public class RingwireHttpServerCloseSequenceTest extends HttpServerCloseSequenceTest {
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
