package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.test.core.ProvidedBy;
import io.vertx.test.core.VertxProvider;
import io.vertx.tests.http.Http1xTest;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Ignore;
import org.junit.Test;

import java.net.SocketException;

/**
 * Vert.x's Http1xTest (HTTP/1.x servers and clients: keep-alive, pipelining, chunking, pooling, timeouts, TLS) on
 * Ringwire.
 */
public class RingwireHttp1xTest extends Http1xTest {
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

    /** Fetches http://www.google.com: the Internet, which the suite's network namespace does not have. */
    @Ignore("fetches http://www.google.com; the suite runs with loopback only")
    @Test
    @Override
    public void requestAbsNoPort() {
    }

    @Before
    @Override
    public void before(@ProvidedBy(OnRingwireProvider.class) Vertx vertx) throws Exception {
        super.before(OnRingwire.checked(vertx));
    }
}
