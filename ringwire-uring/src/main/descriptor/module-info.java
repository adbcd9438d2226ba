/**
 * Ringwire's io_uring binding: rings, submission and completion queues, provided buffer rings, the socket calls and
 * the feature probe, on the FFM API, with no Netty in it. It is published because the transport needs it; it is not
 * an API and makes no promise of compatibility, so its package is exported to the transport alone. This is the one
 * Ringwire module that makes restricted FFM calls, and so the one that needs native access:
 * {@code --enable-native-access=io.ringwire.uring} on the module path.
 */
module io.ringwire.uring {
    exports io.ringwire.uring to io.ringwire.transport;
}
