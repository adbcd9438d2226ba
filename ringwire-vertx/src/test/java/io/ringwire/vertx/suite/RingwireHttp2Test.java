package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.test.core.ProvidedBy;
import io.vertx.test.core.VertxProvider;
import io.vertx.tests.http.Http2Test;
import org.junit.Before;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's Http2Test (the HTTP tests Http1xTest runs too, over HTTP/2 with TLS and ALPN) on Ringwire. */
public class RingwireHttp2Test extends Http2Test {
    @BeforeClass
    public static void ownNetworkOnly() throws SocketException {
        OnRingwire.requireOwnNetwork();
    }

    /** The test base's provider (its DNS server as the resolver, when a test starts one), on Ringwire. */
    public class OnRingwireProvider implements VertxProvider {
        @Override
        public Vertx call() {
            return OnRingwire.forHttpTest(dnsServer);
        }
    }

    @Before
    @Override
    public void before(@ProvidedBy(OnRingwireProvider.class) Vertx vertx) throws Exception {
        super.before(OnRingwire.checked(vertx));
    }
}
