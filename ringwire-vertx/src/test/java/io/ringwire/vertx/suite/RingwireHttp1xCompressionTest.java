package io.ringwire.vertx.suite;

import io.vertx.tests.http.compression.CompressionConfig;
import io.vertx.tests.http.compression.Http1xCompressionTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http1xCompressionTest (compressed HTTP/1.x bodies) on Ringwire. */
public class RingwireHttp1xCompressionTest extends Http1xCompressionTest {
    /** @param config one of the base's parameters (each compression algorithm) */
    public RingwireHttp1xCompressionTest(CompressionConfig config) {
        super(config);
    }

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
