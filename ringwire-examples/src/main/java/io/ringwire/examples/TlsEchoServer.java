package io.ringwire.examples;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The echo server ({@link EchoServerHandler}, unchanged) behind TLS 1.3: Netty's {@code SslHandler} first in every
 * connection's pipeline, as an HTTPS or gRPC server has it. The TLS engine is Netty's OpenSSL one (BoringSSL from
 * netty-tcnative, what most Netty servers run) where it loads, the JDK's otherwise, or the one
 * {@code -Dringwire.examples.tlsProvider=jdk|openssl} names; {@link #provider()} says which.
 *
 * <p>The certificate is the examples' self-signed one for localhost ({@link ExampleCertificate}).
 *
 * <pre>
 * java ... io.ringwire.examples.TlsEchoServer [port] [threads] [transport]   # 127.0.0.1, default 9004, ringwire
 * </pre>
 */
public final class TlsEchoServer {
    private TlsEchoServer() { }

    /**
     * @param args optional port, event-loop threads, transport
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 9004, "TLS echo server", TlsEchoServer::start);
    }

    /**
     * @param transport {@code ringwire}, {@code netty-epoll}, {@code netty-io_uring} or {@code netty-nio}
     * @param address   where to bind
     * @param threads   event-loop threads
     * @return the bound server channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        return start(transport, address, threads, new EchoServerHandler());
    }

    /**
     * The same server with another handler behind TLS.
     *
     * @param handler a {@code @Sharable} handler, added to every connection's pipeline after the SslHandler
     * @return the bound server channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads, ChannelHandler handler)
        throws InterruptedException {
        ExampleCertificate id = ExampleCertificate.load();
        SslContext tls;
        try {
            tls = SslContextBuilder.forServer(id.key(), id.certificate()).sslProvider(provider())
                .protocols("TLSv1.3").build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException("the TLS context does not build", e);
        }
        return Transports.startServer(transport, address, threads, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(tls.newHandler(ch.alloc()), handler);
            }
        });
    }

    /** @return the TLS engine the server and the lab's client use: OpenSSL where it loads, unless told otherwise */
    public static SslProvider provider() {
        String asked = System.getProperty("ringwire.examples.tlsProvider", "");
        return switch (asked.toLowerCase(Locale.ROOT)) {
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> SslProvider.OPENSSL;
            case "" -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            default -> throw new IllegalArgumentException("ringwire.examples.tlsProvider is jdk or openssl: " + asked);
        };
    }
}
