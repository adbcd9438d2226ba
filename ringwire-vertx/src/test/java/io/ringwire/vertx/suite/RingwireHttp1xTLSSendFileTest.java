package io.ringwire.vertx.suite;

import io.vertx.tests.http.sendfile.Http1xTLSSendFileTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http1xTLSSendFileTest (files sent over TLS: chunked through the pipeline) on Ringwire. */
public class RingwireHttp1xTLSSendFileTest extends Http1xTLSSendFileTest {
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
