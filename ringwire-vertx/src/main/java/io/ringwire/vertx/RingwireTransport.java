package io.ringwire.vertx;

import io.ringwire.transport.Ringwire;
import io.vertx.core.transport.Transport;

/**
 * Ringwire as a Vert.x transport:
 *
 * <pre>{@code
 * Vertx vertx = Vertx.builder().withTransport(RingwireTransport.RINGWIRE).build();
 * }</pre>
 *
 * Where io_uring is unavailable ({@link #available()} false), {@link #unavailabilityCause()} says why; Vert.x then
 * fails to start with this transport. {@link #best()} chooses for the application, as {@link Ringwire#bestTransport()}
 * does (Ringwire, else Netty's epoll when {@code netty-transport-native-epoll} is on the class path, else NIO; logged
 * once, with the reason):
 *
 * <pre>{@code
 * Vertx vertx = Vertx.builder().withTransport(RingwireTransport.best()).build();
 * }</pre>
 */
public final class RingwireTransport implements Transport {
    /** Ringwire with its default configuration. */
    public static final Transport RINGWIRE = new RingwireTransport(new RingwireVertxTransport());

    private final io.vertx.core.spi.transport.Transport implementation;

    /**
     * @return {@link #RINGWIRE} where Ringwire can run, else Vert.x's {@code Transport.EPOLL} or
     *         {@code Transport.NIO}, as {@link Ringwire#bestTransport()} chose
     */
    public static Transport best() {
        return switch (Ringwire.bestTransport().kind()) {
            case RINGWIRE -> RINGWIRE;
            case EPOLL -> Transport.EPOLL;
            case NIO -> Transport.NIO;
        };
    }

    /** @param implementation the SPI implementation, e.g. with a custom Ringwire configuration */
    public RingwireTransport(RingwireVertxTransport implementation) {
        this.implementation = implementation;
    }

    @Override
    public String name() {
        return "ringwire";
    }

    @Override
    public boolean available() {
        return Ringwire.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ringwire.unavailabilityCause();
    }

    @Override
    public io.vertx.core.spi.transport.Transport implementation() {
        return implementation;
    }
}
