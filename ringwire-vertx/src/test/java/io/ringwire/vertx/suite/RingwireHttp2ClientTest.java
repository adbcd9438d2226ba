package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tests.http.Http2ClientTest;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http2ClientTest (HTTP/2 clients, against Netty's own HTTP/2 server) on Ringwire. */
public class RingwireHttp2ClientTest extends Http2ClientTest {
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
