package io.ringwire.vertx.suite;

import io.vertx.tests.http.Http1xHAProxyTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http1xHAProxyTest (the HAProxy protocol in front of HTTP/1.x, TCP and domain sockets) on Ringwire. */
public class RingwireHttp1xHAProxyTest extends Http1xHAProxyTest {
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
