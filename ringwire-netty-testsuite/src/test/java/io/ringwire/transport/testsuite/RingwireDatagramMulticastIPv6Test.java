package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.DatagramMulticastIPv6Test;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.util.List;

/**
 * Netty's DatagramMulticastIPv6Test, skipped saying why: it sends group datagrams off loopback. Ringwire's multicast is
 * tested by {@code io.ringwire.transport.MulticastTest} inside a network namespace of its own.
 */
class RingwireDatagramMulticastIPv6Test extends DatagramMulticastIPv6Test {
    @Override
    protected List<BootstrapComboFactory<Bootstrap, Bootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.datagram(socketInternetProtocalFamily());
    }

    @Override
    @Test
    public void testMulticast(TestInfo testInfo) {
        Assumptions.abort(MulticastSkip.WHY);
    }

    /** Joins a group on the host's multicast-capable interface too (its IGMP report leaves the host): skipped. */
    @Override
    @Test
    public void testMulticastWithWildcardLocalAddress(TestInfo testInfo) {
        Assumptions.abort(MulticastSkip.WHY);
    }
}
