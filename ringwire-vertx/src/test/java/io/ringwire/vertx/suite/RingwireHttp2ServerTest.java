package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tests.http.Http2ServerTest;
import org.junit.BeforeClass;

import java.net.SocketException;

/**
 * Vert.x's Http2ServerTest (HTTP/2 servers, driven by Netty's own HTTP/2 client: streams, flow control, push,
 * resets, h2c upgrade) on Ringwire.
 */
public class RingwireHttp2ServerTest extends Http2ServerTest {
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
