package io.ringwire.uring;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SockAddrTest {
    private static SocketAddress roundTrip(SocketAddress a, boolean ipv6, int expectedLength) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SockAddr.STORAGE_SIZE);
            int len = SockAddr.write(a, s, ipv6);
            assertEquals(expectedLength, len);
            return SockAddr.read(s, len);
        }
    }

    @Test
    void shouldRoundTripIpv4WithPortInNetworkOrder() throws Exception {
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0x1234);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SockAddr.STORAGE_SIZE);
            SockAddr.write(a, s, false);
            assertEquals((byte) 0x12, s.get(JAVA_BYTE, 2), "big-endian port, high byte first");
            assertEquals((byte) 0x34, s.get(JAVA_BYTE, 3));
            assertEquals((byte) 127, s.get(JAVA_BYTE, 4));
        }
        assertEquals(a, roundTrip(a, false, SockAddr.IN_SIZE));
    }

    @Test
    void shouldRoundTripIpv6AndMapIpv4() throws Exception {
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 8080);
        assertEquals(v6, roundTrip(v6, true, SockAddr.IN6_SIZE));
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9);
        assertEquals(v4, roundTrip(v4, true, SockAddr.IN6_SIZE), "IPv4-mapped on an AF_INET6 socket, read back as IPv4");
    }

    @Test
    void theIpv4WildcardIsTheIpv6WildcardOnAnIpv6Socket() throws Exception {
        InetSocketAddress any = new InetSocketAddress(7000); // 0.0.0.0, as the JDK and Netty's bind(port) give it
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SockAddr.STORAGE_SIZE);
            s.fill((byte) 0x55);
            assertEquals(SockAddr.IN6_SIZE, SockAddr.write(any, s, true));
            assertEquals(new InetSocketAddress(InetAddress.getByName("::"), 7000), SockAddr.read(s, SockAddr.IN6_SIZE),
                ":: (both families), not ::ffff:0.0.0.0 (IPv4 only)");
            assertEquals(any, roundTrip(any, false, SockAddr.IN_SIZE), "0.0.0.0 itself on an AF_INET socket");
        }
    }

    @Test
    void shouldRoundTripUnixPath() {
        UnixDomainSocketAddress u = UnixDomainSocketAddress.of("/tmp/ringwire-test.sock");
        assertEquals(u, roundTrip(u, false, 2 + "/tmp/ringwire-test.sock".length() + 1));
    }

    @Test
    void shouldRejectBadAddressesClearly() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SockAddr.STORAGE_SIZE);
            var unresolved = InetSocketAddress.createUnresolved("example.invalid", 1);
            assertEquals("unresolved address: " + unresolved,
                assertThrows(IllegalArgumentException.class, () -> SockAddr.write(unresolved, s, false)).getMessage());
            var v6 = new InetSocketAddress(InetAddress.getByName("::1"), 1);
            assertThrows(IllegalArgumentException.class, () -> SockAddr.write(v6, s, false));
            var longPath = UnixDomainSocketAddress.of("/" + "x".repeat(120));
            assertThrows(IllegalArgumentException.class, () -> SockAddr.write(longPath, s, false));
        }
    }
}
