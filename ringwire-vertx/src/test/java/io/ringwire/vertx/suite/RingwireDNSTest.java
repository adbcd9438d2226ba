package io.ringwire.vertx.suite;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tests.dns.DNSTest;
import org.junit.BeforeClass;

import java.net.SocketException;

/**
 * Vert.x's DNSTest (its DNS client over the datagram channel, against a DNS server the test runs on loopback) on
 * Ringwire.
 */
public class RingwireDNSTest extends DNSTest {
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
