/** Reactor Netty's {@code LoopResources} on Ringwire, for its HTTP and TCP servers and clients. */
module io.ringwire.reactor {
    requires transitive io.ringwire.transport;
    requires transitive reactor.netty.core;
    requires reactor.core;

    exports io.ringwire.reactor;
}
