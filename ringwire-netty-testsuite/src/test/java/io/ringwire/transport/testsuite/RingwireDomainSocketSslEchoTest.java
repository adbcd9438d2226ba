package io.ringwire.transport.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.handler.ssl.SslContext;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslEchoTest;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Netty's SocketSslEchoTest over Unix domain sockets: every case over Ringwire × Ringwire (fds, direct descriptors),
 * the representative ones ({@link SslEchoCases}) also over Ringwire with epoll both ways.
 */
class RingwireDomainSocketSslEchoTest extends SocketSslEchoTest {
    /** Whether the running case goes over every pairing or over Ringwire × Ringwire only. */
    private boolean overEveryPairing;

    /** Netty's test, remembering which of its cases runs (Netty's keeps its parameters private). */
    @ParameterizedTest(name =
        "{index}: serverEngine = {0}, clientEngine = {1}, renegotiation = {2}, "
            + "serverUsesDelegatedTaskExecutor = {3}, clientUsesDelegatedTaskExecutor = {4}, "
            + "autoRead = {5}, useChunkedWriteHandler = {6}, useCompositeByteBuf = {7}")
    @MethodSource("data")
    @Timeout(value = 30000, unit = TimeUnit.MILLISECONDS)
    @Override
    public void testSslEcho(SslContext serverCtx, SslContext clientCtx, Renegotiation renegotiation,
                            boolean serverUsesDelegatedTaskExecutor, boolean clientUsesDelegatedTaskExecutor,
                            boolean autoRead, boolean useChunkedWriteHandler, boolean useCompositeByteBuf,
                            TestInfo testInfo) throws Throwable {
        overEveryPairing = SslEchoCases.overEveryPairing(serverUsesDelegatedTaskExecutor,
            clientUsesDelegatedTaskExecutor, autoRead, useChunkedWriteHandler, useCompositeByteBuf);
        super.testSslEcho(serverCtx, clientCtx, renegotiation, serverUsesDelegatedTaskExecutor,
            clientUsesDelegatedTaskExecutor, autoRead, useChunkedWriteHandler, useCompositeByteBuf, testInfo);
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RingwireSocketTestPermutation.newDomainSocketAddress();
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return overEveryPairing
            ? RingwireSocketTestPermutation.INSTANCE.domainSocket()
            : RingwireSocketTestPermutation.INSTANCE.domainSocketRingwireWithItself();
    }
}
