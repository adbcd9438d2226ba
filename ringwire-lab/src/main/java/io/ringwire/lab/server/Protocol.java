package io.ringwire.lab.server;

/** What a lab server speaks; the same on every competitor. */
public enum Protocol {
    /** Bytes back as they come (Netty's announcement's echo). */
    ECHO,
    /**
     * Length-prefixed frames echoed one by one (the RSocket evaluation's RPC, minus the RPC library): a 4-byte
     * big-endian length of what follows, then the frame. The Netty servers decode with
     * {@code LengthFieldBasedFrameDecoder} and write each frame back as its own buffer; the blocking servers read and
     * write frame by frame.
     */
    FRAMES,
    /**
     * {@link #FRAMES} with reactive back-pressure: the Netty servers turn autoRead off for every frame and on again
     * once its echo is written (reactor-netty issue 3833's pattern); the blocking servers serve it as FRAMES.
     */
    PAUSING,
    /**
     * SET/GET over the Redis protocol (the critique's): Netty's redis codec, a hand-written RESP reader for blocking.
     */
    REDIS,
    /**
     * HTTP/1.1 "Hello, World!" (TechEmpower's plaintext test): Netty's HTTP codec
     * ({@code io.ringwire.examples.HttpHelloServer}) on the Netty servers, a request-line-and-headers reader answering
     * the same bytes on the blocking ones.
     */
    HTTP,
    /**
     * UDP: each datagram back to its sender. The Netty servers bind one datagram channel (one event loop) and flush
     * once per batch of reads; the blocking servers receive and send on one thread.
     */
    UDP_ECHO,
    /**
     * {@link #ECHO} over a Unix domain stream socket at {@link #domainSocketPath(int)} of the server's port: the same
     * handler on every Netty transport's domain server channel, a thread per connection for the blocking servers.
     */
    DOMAIN_ECHO,
    /**
     * File serving: a 9-byte request (the size, a big-endian long, and 0 for a FileRegion made from a File, 1 for
     * one made from a FileChannel), answered with a file of that size ({@code io.ringwire.examples.FileServer}); the
     * blocking servers copy the file to the socket.
     */
    FILES,
    /**
     * QUIC (Netty's QUIC codec, quiche; {@code io.ringwire.examples.QuicEchoServer}): each stream's bytes back on that
     * stream, over the transport's UDP channel, with GSO where the transport has it. Netty-based servers only.
     */
    QUIC,
    /**
     * {@link #ECHO} behind TLS 1.3 ({@code io.ringwire.examples.TlsEchoServer}: Netty's SslHandler, OpenSSL's engine
     * where it loads). Netty-based servers only.
     */
    TLS_ECHO,
    /**
     * Every channel type at once, on the same event loop(s), for the soak: {@link #FRAMES} on the server's port,
     * {@link #DOMAIN_ECHO} at {@link #domainSocketPath(int)} of it, and {@link #UDP_ECHO}, {@link #FILES},
     * {@link #TLS_ECHO} and {@link #QUIC} on ports of their own, which the server's READY line names ({@code udp=},
     * {@code files=}, {@code tls=}, {@code quic=}). Netty-based servers only.
     */
    MIXED;

    /** @return whether only the servers on a Netty transport speak it (its codec is Netty's) */
    public boolean nettyOnly() {
        return this == QUIC || this == TLS_ECHO || this == MIXED;
    }

    /** @return the socket file of the domain-socket server that would listen on {@code port} */
    public static java.nio.file.Path domainSocketPath(int port) {
        return java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "ringwire-lab-" + port + ".sock");
    }
}
