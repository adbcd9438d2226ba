package io.ringwire.transport.testsuite;

/** Why Netty's multicast tests do not run here. */
final class MulticastSkip {
    static final String WHY = "Netty's DatagramMulticastTest picks the host's first multicast-capable interface "
        + "(from NetUtil.NETWORK_INTERFACES, listed once per JVM in the host's network namespace: eth0 here, as lo "
        + "has no MULTICAST flag) and sends group datagrams out of it, off loopback, which this project's tests never "
        + "do; it cannot be moved into a network namespace either, for that list. MulticastTest covers join, receive "
        + "and leave on Ringwire's datagram channel inside a namespace it creates.";

    private MulticastSkip() { }
}
