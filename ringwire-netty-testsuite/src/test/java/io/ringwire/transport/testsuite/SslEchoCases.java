package io.ringwire.transport.testsuite;

/**
 * Which of Netty's SocketSslEchoTest cases run over every pairing of transports, and which over Ringwire × Ringwire
 * only (with fds and with direct descriptors).
 *
 * <p>The test's 192 cases are the server's and the client's TLS engine (the JDK's, OpenSSL's), renegotiation (none, by
 * the client, by the server: JDK engines only) and five switches: a delegated-task executor on the server, one on the
 * client, autoRead, a ChunkedWriteHandler, composite buffers. All of them run over Ringwire × Ringwire. The switches
 * change what TLS does above the channel; what reaches the transport from them is the order and size of the writes and
 * whether reads are asked for, which a few cases already cover. So over the pairings with NIO and epoll (the same
 * transport paths on Ringwire's end, the other end someone else's) every engine pairing and renegotiation runs with
 * the switches all off, all on, autoRead alone on, and all but autoRead on: each switch both ways, autoRead against
 * both settings of the others. That is 24 cases of 192: over TCP and Unix domain sockets the test runs 1,824 echoes
 * instead of 3,840 (which took 320 s on 2 cores).
 */
final class SslEchoCases {
    private SslEchoCases() {
    }

    /**
     * @return whether the case with these switches runs over every pairing, not only Ringwire × Ringwire
     */
    static boolean overEveryPairing(boolean serverUsesDelegatedTaskExecutor, boolean clientUsesDelegatedTaskExecutor,
                                    boolean autoRead, boolean useChunkedWriteHandler, boolean useCompositeByteBuf) {
        // the other four switches all off or all on, autoRead either way
        return clientUsesDelegatedTaskExecutor == serverUsesDelegatedTaskExecutor
            && useChunkedWriteHandler == serverUsesDelegatedTaskExecutor
            && useCompositeByteBuf == serverUsesDelegatedTaskExecutor;
    }
}
