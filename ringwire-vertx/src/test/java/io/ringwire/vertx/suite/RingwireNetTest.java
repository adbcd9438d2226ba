package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.test.core.ProvidedBy;
import io.vertx.tests.net.NetTest;
import org.junit.Before;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's NetTest (TCP servers and clients, TLS, proxies, half-close, back-pressure) on Ringwire. */
public class RingwireNetTest extends NetTest {
    @BeforeClass
    public static void ownNetworkOnly() throws SocketException {
        OnRingwire.requireOwnNetwork();
    }

    /** NetTest's provider (its host names resolved to loopback), with Ringwire as the transport. */
    public static final class OnRingwireProvider extends NetTest.Provider {
        @Override
        public Vertx call() {
            return OnRingwire.checked(OnRingwire.transport(Vertx.builder().with(options())).build());
        }
    }

    @Before
    @Override
    public void setUp(@ProvidedBy(OnRingwireProvider.class) Vertx vertx) throws Exception {
        super.setUp(OnRingwire.checked(vertx));
    }
}
