/**
 * Ringwire, a Netty 4.2 transport on io_uring: {@link io.ringwire.transport.RingwireIoHandler}'s factory for Netty's
 * {@code MultiThreadIoEventLoopGroup}, the channel classes that replace Netty's epoll and io_uring ones, their options,
 * and the loops' counters. The one exported package is the API.
 */
module io.ringwire.transport {
    requires transitive io.netty.common;
    requires transitive io.netty.buffer;
    requires transitive io.netty.transport;
    requires transitive io.netty.transport.unix.common;
    requires io.ringwire.uring;
    requires java.management;
    // Ringwire.bestTransport()'s second choice, when the application has it (an optional dependency)
    requires static io.netty.transport.classes.epoll;

    exports io.ringwire.transport;
}
