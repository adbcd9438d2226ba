/** A Netty echo server and client on Ringwire, as a named module: it needs Ringwire's API module and nothing else. */
module example.echo {
    requires io.ringwire.transport;

    exports example.echo;
}
