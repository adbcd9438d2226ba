package io.ringwire.vertx.suite;

import io.vertx.tests.http.sendfile.Http1xSendFileTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http1xSendFileTest (HTTP/1.x responses sent from files: Netty FileRegions) on Ringwire. */
public class RingwireHttp1xSendFileTest extends Http1xSendFileTest {
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
