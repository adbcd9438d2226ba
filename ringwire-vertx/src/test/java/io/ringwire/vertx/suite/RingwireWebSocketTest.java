package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tests.http.WebSocketTest;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's WebSocketTest (WebSocket servers and clients) on Ringwire. */
public class RingwireWebSocketTest extends WebSocketTest {
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
