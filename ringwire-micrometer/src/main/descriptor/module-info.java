/** Ringwire's loop counters as Micrometer meters: {@link io.ringwire.micrometer.RingwireMeterBinder}. */
module io.ringwire.micrometer {
    requires transitive io.ringwire.transport;
    requires transitive micrometer.core;

    exports io.ringwire.micrometer;
}
