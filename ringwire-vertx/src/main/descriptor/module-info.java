/** Vert.x 5's transport SPI on Ringwire: {@code RingwireTransport.RINGWIRE}. */
module io.ringwire.vertx {
    requires transitive io.ringwire.transport;
    requires transitive io.vertx.core;

    exports io.ringwire.vertx;
}
