package io.ringwire.transport.testsuite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.AbstractSocketShutdownOutputByPeerTest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * Netty's AbstractSocketShutdownOutputByPeerTest over Unix domain sockets, as Netty's epoll module runs it: a
 * Ringwire domain server whose peer (the JDK's own Unix domain socket channel) shuts its output down.
 */
class RingwireDomainSocketShutdownOutputByPeerTest extends AbstractSocketShutdownOutputByPeerTest<SocketChannel> {
    @Override
    protected SocketAddress newSocketAddress() {
        return RingwireSocketTestPermutation.newDomainSocketAddress();
    }

    @Override
    protected List<BootstrapFactory<ServerBootstrap>> newFactories() {
        return RingwireSocketTestPermutation.INSTANCE.domainServerSocket();
    }

    @Override
    protected void shutdownOutput(SocketChannel s) throws IOException {
        s.shutdownOutput();
    }

    @Override
    protected void connect(SocketChannel s, SocketAddress address) throws IOException {
        s.connect(UnixDomainSocketAddress.of(((DomainSocketAddress) address).path()));
    }

    @Override
    protected void close(SocketChannel s) throws IOException {
        s.close();
    }

    @Override
    protected void write(SocketChannel s, int data) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1).put(0, (byte) data);
        while (b.hasRemaining()) {
            s.write(b);
        }
    }

    @Override
    protected SocketChannel newSocket() {
        try {
            return SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
