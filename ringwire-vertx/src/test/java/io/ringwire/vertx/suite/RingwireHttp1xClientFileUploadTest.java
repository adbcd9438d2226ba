package io.ringwire.vertx.suite;

import io.vertx.tests.http.fileupload.Http1xClientFileUploadTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http1xClientFileUploadTest (multipart uploads sent by the HTTP/1.x client) on Ringwire. */
public class RingwireHttp1xClientFileUploadTest extends Http1xClientFileUploadTest {
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
