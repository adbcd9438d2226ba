package io.ringwire.lab.cost;

import io.ringwire.lab.server.MemorySnapshot;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conns workload's arithmetic: snapshots read back as written, and the difference attributed per connection. */
class ConnectionCostTest {
    private static final String NMT = """
        Total: reserved=7741778KB, committed=487290KB
        -                 Java Heap (reserved=6172672KB, committed=393216KB)
        -                    Thread (reserved=18490KB, committed=782KB)
        -                      Code (reserved=248999KB, committed=8855KB)
        -                        GC (reserved=158282KB, committed=45402KB)
        -                     Other (reserved=34KB, committed=34KB)
        -           Object Monitors (reserved=1KB, committed=1KB)
        """;

    @Test
    void nmtCategoriesAreReadWithTheirCommittedSize() {
        Map<String, Long> nmt = MemorySnapshot.parseNmt(NMT);
        assertEquals(782L, nmt.get("Thread"));
        assertEquals(45402L, nmt.get("GC"));
        assertEquals(1L, nmt.get("Object_Monitors"));
        assertEquals(393216L, nmt.get("Java_Heap"));
    }

    @Test
    void aSnapshotLineReadsBackAsWritten() {
        Map<String, long[]> classes = new LinkedHashMap<>();
        classes.put("io.ringwire.transport.RingwireSocketChannel", new long[] {3, 552});
        classes.put("[Ljava.lang.Object;", new long[] {10, 4096});
        classes.put("java.lang.invoke.LambdaForm$MH/0x000001", new long[] {1, 9000});
        MemorySnapshot s = new MemorySnapshot(123_456, MemorySnapshot.parseNmt(NMT), classes, 0);
        MemorySnapshot back = MemorySnapshot.parse(s.line(), 777);
        assertEquals(123_456, back.heapBytes());
        assertEquals(777, back.rssKiB());
        assertEquals(s.nmtKiB(), back.nmtKiB());
        assertEquals(classes.keySet(), back.classes().keySet());
        assertEquals(552, back.classes().get("io.ringwire.transport.RingwireSocketChannel")[1]);
        assertEquals(10, back.classes().get("[Ljava.lang.Object;")[0]);
        assertEquals((782 + 34 + 1) * 1024L, back.nmtBytes(MemorySnapshot.NATIVE_CATEGORIES));
    }

    @Test
    void theDifferenceIsSplitByOwnerPerConnection() {
        Map<String, long[]> before = new LinkedHashMap<>();
        before.put("[B", new long[] {100, 10_000});
        Map<String, long[]> after = new LinkedHashMap<>();
        after.put("[B", new long[] {1100, 58_000});                                        // +48 B per connection
        after.put("io.ringwire.transport.RingwireSocketChannel", new long[] {1000, 184_000}); // 184
        after.put("io.netty.channel.DefaultChannelPipeline", new long[] {1000, 48_000});       // 48
        MemorySnapshot without = new MemorySnapshot(1_000_000, Map.of("Thread", 100L, "GC", 10L), before, 50_000);
        MemorySnapshot with = new MemorySnapshot(1_280_000, Map.of("Thread", 102L, "GC", 12L), after, 51_000);
        ConnectionCost c = ConnectionCost.of("v", "ringwire", 1, 1000, 0.5, without, with, 1_000_000, 6_000_000);
        assertEquals(280, c.heapPerConn(), 1e-9);
        assertEquals(2 * 1024 / 1000.0, c.nativePerConn(), 1e-9);
        assertEquals(2 * 1024 / 1000.0, c.gcPerConn(), 1e-9);
        assertEquals(1024.0, c.rssPerConn(), 1e-9);
        assertEquals(5000.0, c.kernelPerConn(), 1e-9, "the kernel's, both ends");
        assertEquals(184, c.transportPerConn(), 1e-9);
        assertEquals(48, c.nettyPerConn(), 1e-9);
        assertEquals(48, c.otherPerConn(), 1e-9);
        assertEquals(2000, c.connectsPerSec(), 1e-9);
        assertEquals("io.ringwire.transport.RingwireSocketChannel", c.top().get(0).name());
        assertEquals(1.0, c.top().get(0).instancesPerConn(), 1e-9);
        // Netty's epoll classes are epoll's own state; Netty's pipeline is not
        ConnectionCost epoll = ConnectionCost.of("v", "netty-epoll", 1, 1000, 0.5, without, with, Double.NaN,
            Double.NaN);
        assertEquals(0, epoll.transportPerConn(), 1e-9);
        assertEquals(48, epoll.nettyPerConn(), 1e-9);
        String table = ConnectionCost.table(java.util.List.of(c, epoll));
        assertTrue(table.contains("RingwireSocketChannel 1.0 ×"), table);
        assertTrue(table.contains("5,000"), "the kernel's column: " + table);
    }
}
