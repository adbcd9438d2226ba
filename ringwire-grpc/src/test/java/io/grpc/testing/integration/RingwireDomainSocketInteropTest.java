package io.grpc.testing.integration;

import io.netty.channel.unix.DomainSocketAddress;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** gRPC-java's interop tests on Ringwire over a Unix domain socket, a fresh path per test. */
public class RingwireDomainSocketInteropTest extends RingwireInteropTest {
    @Override
    protected SocketAddress listenAt() {
        try {
            Path dir = Files.createTempDirectory("ringwire-grpc-interop");
            File socket = dir.resolve("server.sock").toFile();
            socket.deleteOnExit();
            dir.toFile().deleteOnExit();
            return new DomainSocketAddress(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
