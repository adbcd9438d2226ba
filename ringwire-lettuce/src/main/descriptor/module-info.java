/** Lettuce on Ringwire: {@code RingwireLettuce.clientResources()}. */
module io.ringwire.lettuce {
    requires transitive io.ringwire.transport;
    requires transitive lettuce.core;
    requires io.netty.resolver.dns;

    exports io.ringwire.lettuce;
}
