package io.ringwire.transport.testsuite;

import io.netty.channel.unix.DomainSocketAddress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Socket files that a test's channels bind and that no channel deletes: a datagram channel's, and a client's bound to
 * a local path before connecting (Netty's transports leave both behind, as Ringwire's do; only a listening channel
 * removes its own). The test deletes them after each case.
 */
final class SocketFiles {
    private final List<String> bound = new ArrayList<>();

    /** @return a fresh path in the temporary directory, remembered for {@link #deleteAll()} */
    DomainSocketAddress newAddress() {
        DomainSocketAddress a = RingwireSocketTestPermutation.newDomainSocketAddress();
        bound.add(a.path());
        return a;
    }

    void deleteAll() throws IOException {
        for (String path : bound) {
            Files.deleteIfExists(Path.of(path));
        }
        bound.clear();
    }
}
