package io.ringwire.vertx.suite;

import io.vertx.tests.eventbus.ClusteredEventBusTest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import org.junit.BeforeClass;

import java.net.SocketException;

/** Vert.x's ClusteredEventBusTest (the event bus between clustered nodes, over TCP) on Ringwire. */
public class RingwireClusteredEventBusTest extends ClusteredEventBusTest {
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
