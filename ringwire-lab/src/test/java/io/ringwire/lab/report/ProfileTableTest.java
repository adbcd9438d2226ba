package io.ringwire.lab.report;

import io.ringwire.lab.experiment.ProgressTest;
import io.ringwire.lab.results.Profile;
import io.ringwire.lab.results.ProfileLayer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --profile}'s table: collapsed stacks read into layers, pooled per server, and set side by side. */
public class ProfileTableTest {
    private static final String LOOP = "java/lang/Thread.run;io/ringwire/transport/RingwireIoHandler.run";
    private static final String TCP = LOOP + ";syscall;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
        + "__x64_sys_io_uring_enter_[k];io_submit_sqes_[k];io_send_[k];tcp_sendmsg_locked_[k]";
    private static final String URING = LOOP + ";syscall;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
        + "__x64_sys_io_uring_enter_[k];io_submit_sqes_[k]";
    private static final String EPOLL = "java/lang/Thread.run;io/netty/channel/epoll/EpollIoHandler.run";
    private static final String HANDLER = ";io/netty/channel/AbstractChannelHandlerContext.invokeChannelRead;"
        + "io/ringwire/examples/EchoServerHandler.channelRead";

    public static Profile profile(String server, int round, double cpuUsPerMsg, String... lines) {
        return Profile.of("rpc-backend", "32 conns × 1000 streams × 32 msgs × 128 B", server, round, "cpu-clock",
            "profiles/x.html", "profiles/x.collapsed", cpuUsPerMsg, List.of(lines));
    }

    @Test
    void aProfileCountsSamplesPerLayerAndPerLeafFrame() {
        Profile p = profile("ringwire", 1, 0.3, TCP + " 50", URING + " 30", LOOP + " 15", LOOP + HANDLER + " 5",
            "not a stack line", "");
        assertEquals(100, p.samples());
        assertEquals(50, p.layers().get(ProfileLayer.KERNEL_TCP_IP));
        assertEquals(30, p.layers().get(ProfileLayer.KERNEL_POLL));
        assertEquals(15, p.layers().get(ProfileLayer.TRANSPORT));
        assertEquals(5, p.layers().get(ProfileLayer.HANDLER));
        assertEquals(0, p.layers().get(ProfileLayer.GC_JIT));
        assertEquals(50, p.self().get("tcp_sendmsg_locked_[k]"));
        assertEquals(30, p.self().get("io_submit_sqes_[k]"));
        assertTrue(p.kernelFrames());
        assertFalse(profile("netty-epoll", 1, 0.2, EPOLL + " 7").kernelFrames());
    }

    @Test
    void aColumnIsEachLayersShareOfThePooledSamplesTimesTheMedianCpuPerMessage() {
        ProfileTable.Column c = ProfileTable.column(List.of(
            profile("ringwire", 1, 0.30, TCP + " 60", LOOP + " 40"),
            profile("ringwire", 2, 0.20, TCP + " 40", LOOP + " 60"),
            profile("ringwire", 3, 0.40, TCP + " 50", LOOP + " 50")));
        assertEquals(3, c.runs());
        assertEquals(300, c.samples());
        assertEquals(0.30, c.cpuUsPerMsg(), 1e-12);
        assertEquals(0.15, c.layer(ProfileLayer.KERNEL_TCP_IP), 1e-12);
        assertEquals(0.15, c.layer(ProfileLayer.TRANSPORT), 1e-12);
        assertEquals(0.0, c.layer(ProfileLayer.NETTY), 1e-12);
        double sum = 0;
        for (ProfileLayer l : ProfileLayer.values()) {
            sum += c.layer(l);
        }
        assertEquals(c.cpuUsPerMsg(), sum, 1e-12, "the layers add up to the measured CPU per message");
        assertEquals(0.15, c.self().get("tcp_sendmsg_locked_[k]"), 1e-12);
    }

    @Test
    void theFramesThatDifferMostComeFirstWhicheverSideIsDearer() {
        ProfileTable.Column a = ProfileTable.column(List.of(profile("ringwire", 1, 1.0, TCP + " 50", URING + " 40",
            LOOP + " 10")));
        ProfileTable.Column b = ProfileTable.column(List.of(profile("netty-epoll", 1, 1.0, TCP + " 45",
            EPOLL + " 55")));
        List<ProfileTable.Difference> d = ProfileTable.differences(a, b, 3);
        assertEquals(List.of("io/netty/channel/epoll/EpollIoHandler.run", "io_submit_sqes_[k]",
            "io/ringwire/transport/RingwireIoHandler.run"), d.stream().map(ProfileTable.Difference::frame).toList());
        assertEquals(-0.55, d.get(0).diff(), 1e-12);
        assertEquals(0.40, d.get(1).diff(), 1e-12);
        assertEquals(2, ProfileTable.differences(a, b, 2).size());
    }

    @Test
    void theTerminalTableSetsRingwireAgainstNettyEpollWithinTheWidth() {
        String text = ProfileTable.text(List.of(
            profile("ringwire", 1, 0.30, TCP + " 50", URING + " 30", LOOP + " 20"),
            profile("netty-epoll", 1, 0.20, TCP + " 50", EPOLL + " 50"),
            profile("netty-io_uring", 1, 0.40, TCP + " 10")));
        assertTrue(text.contains("== profile · rpc-backend · 32 conns × 1000 streams × 32 msgs × 128 B: server CPU "
            + "µs/msg by layer (PROFILED) ==\n"), text);
        assertTrue(text.contains("layer                                  ringwire  netty-epoll      diff"), text);
        assertTrue(text.contains("kernel TCP/IP                             0.150        0.100    +0.050"), text);
        assertTrue(text.contains("io_uring or epoll kernel                  0.090        0.000    +0.090"), text);
        assertTrue(text.contains("transport's Java                          0.060        0.100    -0.040"), text);
        assertTrue(text.contains("total (process CPU, JIT included)         0.300        0.200    +0.100"), text);
        assertTrue(text.contains("io_submit_sqes [k]"), "kernel frames marked: " + text);
        assertTrue(text.contains("io.netty.channel.epoll.EpollIoHandler.run"), "Java classes dotted: " + text);
        assertTrue(text.contains("sampled by ringwire: cpu-clock, 1 run; netty-epoll: cpu-clock, 1 run"), text);
        assertTrue(text.contains("enter no verdict"), text);
        assertFalse(text.contains("netty-io_uring"), "one table: ringwire against netty-epoll: " + text);
        ProgressTest.assertFits(text);
    }

    @Test
    void withoutBothServersTheTerminalOnlyPointsAtTheFlameGraphs() {
        String text = ProfileTable.text(List.of(profile("ringwire", 1, 0.3, LOOP + " 3")));
        assertTrue(text.contains("flame graphs of ringwire in the report"), text);
        assertFalse(text.contains("kernel TCP/IP"), text);
        assertEquals("", ProfileTable.text(List.of()));
    }

    @Test
    void aLongFrameKeepsItsEnd() {
        assertEquals("…Method", ProfileTable.shorten("a.very.long.package.Method", 7));
        assertEquals("short", ProfileTable.shorten("short", 7));
        assertEquals("tcp_sendmsg [k]", ProfileTable.display("tcp_sendmsg_[k]"));
        assertEquals("Compile::Code_Gen", ProfileTable.display("Compile::Code_Gen"));
    }
}
