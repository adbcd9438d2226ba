/** gRPC-java's Netty server and channel builders on Ringwire's loops and channels. */
module io.ringwire.grpc {
    requires transitive io.ringwire.transport;
    requires transitive io.grpc;
    requires transitive io.grpc.netty;

    exports io.ringwire.grpc;
}
