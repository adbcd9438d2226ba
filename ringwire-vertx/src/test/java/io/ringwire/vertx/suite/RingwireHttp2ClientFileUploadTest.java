package io.ringwire.vertx.suite;

import io.vertx.tests.http.fileupload.Http2ClientFileUploadTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http2ClientFileUploadTest (multipart uploads sent by the HTTP/2 client) on Ringwire. */
public class RingwireHttp2ClientFileUploadTest extends Http2ClientFileUploadTest {
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
