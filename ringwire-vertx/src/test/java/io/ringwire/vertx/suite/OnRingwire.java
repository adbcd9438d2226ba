package io.ringwire.vertx.suite;

import io.ringwire.vertx.RingwireTransport;
import io.ringwire.vertx.RingwireVertxTransport;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.dns.AddressResolverOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.test.fakedns.DnsServer;
import org.junit.Assume;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How the subclasses of Vert.x's own tests put every Vert.x instance they make on Ringwire, and check that it is.
 * Vert.x's test base chooses its transport once, from {@code -Dvertx.transport}, among Vert.x's own; its tests build
 * every instance through a method a subclass can override, which is where these are called.
 */
final class OnRingwire {
    private OnRingwire() { }

    /**
     * Skips the calling test class unless this JVM's only network interfaces are loopback ones: Vert.x's suite dials
     * 10.0.0.0 and asks /etc/resolv.conf's name server, which must not happen outside a network namespace of the
     * test's own (src/test/own-network-namespace/bin/java makes one where it can).
     */
    static void requireOwnNetwork() throws SocketException {
        List<String> others = NetworkInterface.networkInterfaces().filter(i -> {
            try {
                return !i.isLoopback();
            } catch (SocketException e) {
                return true;
            }
        }).map(NetworkInterface::getName).collect(Collectors.toList());
        Assume.assumeTrue("Vert.x's suite runs only in a network namespace of its own (needs root, unshare and ip);"
            + " this JVM also sees " + others, others.isEmpty());
    }

    /** @return {@code builder}, with Ringwire as its transport */
    static VertxBuilder transport(VertxBuilder builder) {
        if (!RingwireTransport.RINGWIRE.available()) {
            throw new IllegalStateException("Ringwire is unavailable here",
                RingwireTransport.RINGWIRE.unavailabilityCause());
        }
        return builder.withTransport(RingwireTransport.RINGWIRE);
    }

    /** @return a Vert.x instance with {@code options}, on Ringwire (checked) */
    static Vertx build(VertxOptions options) {
        return checked(transport(Vertx.builder().with(options)).build());
    }

    /**
     * The HTTP tests' Vert.x instance ({@code AbstractHttpTest2}'s provider): their DNS server as the resolver when a
     * test has started one, on Ringwire.
     */
    static Vertx forHttpTest(DnsServer dnsServer) {
        VertxOptions options = new VertxOptions();
        if (dnsServer.isStarted()) {
            options.setAddressResolverOptions(new AddressResolverOptions().addServer("127.0.0.1:" + dnsServer.port()));
        }
        return build(options);
    }

    /** @return {@code vertx}, once checked to run on Ringwire's transport */
    static Vertx checked(Vertx vertx) {
        if (!(((VertxInternal) vertx).transport() instanceof RingwireVertxTransport)) {
            throw new AssertionError("not on Ringwire: " + ((VertxInternal) vertx).transport());
        }
        return vertx;
    }
}
