package io.ringwire.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.DataInputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With {@code -Dringwire.jmx=true} each loop's counters are a platform MXBean while the loop runs, read as JConsole
 * or an exporter would; without it, none is registered.
 */
@Isolated // it sets a system property that every loop started meanwhile would read
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountersJmxTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void aLoopsCountersAreAnMXBeanWhileItRuns() throws Exception {
        System.setProperty(RingwireCounters.JMX_PROPERTY, "true");
        EventLoopGroup group;
        try {
            group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("jmx-on"),
                RingwireIoHandler.newFactory());
            echoOnce(group);
        } finally {
            System.clearProperty(RingwireCounters.JMX_PROPERTY);
        }
        List<ObjectName> names = loops("jmx-on");
        assertEquals(1, names.size(), names.toString());
        RingwireLoopMXBean loop = JMX.newMXBeanProxy(SERVER, names.get(0), RingwireLoopMXBean.class);
        assertTrue(loop.getName().startsWith("jmx-on"), loop.getName());
        assertTrue(loop.getEnters() > 0 && loop.getSqes() > 0 && loop.getCqes() > 0, loop.getSummary());
        assertTrue(loop.getRecvBytes() >= 100 && loop.getWriteBytes() >= 100 && loop.getAccepts() == 1,
            loop.getSummary());
        assertTrue(loop.getSqesPerEnter() > 0 && loop.getBytesPerRecv() > 0, loop.getSummary());
        assertTrue(loop.getSummary().startsWith(loop.getName() + ": iterations="), loop.getSummary());
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        assertEquals(List.of(), loops("jmx-on"), "unregistered when the loop ends");
    }

    @Test
    void withoutThePropertyNoneIsRegistered() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("jmx-off"),
            RingwireIoHandler.newFactory());
        try {
            echoOnce(group);
            assertEquals(List.of(), loops("jmx-off"));
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static List<ObjectName> loops(String threadPrefix) throws Exception {
        return SERVER.queryNames(new ObjectName("io.ringwire:type=EventLoop,*"), null).stream()
            .filter(n -> ObjectName.unquote(n.getKeyProperty("name")).startsWith(threadPrefix)).toList();
    }

    /** 100 bytes through a Ringwire echo server on the group, from a JDK socket. */
    private static void echoOnce(EventLoopGroup group) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(RingwireServerSocketChannel.class)
            .childHandler(new TrackingEcho(1)).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .sync().channel();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(),
            ((InetSocketAddress) server.localAddress()).getPort())) {
            byte[] sent = new byte[100];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) i;
            }
            s.getOutputStream().write(sent);
            byte[] back = new byte[sent.length];
            new DataInputStream(s.getInputStream()).readFully(back);
            assertArrayEquals(sent, back);
        } finally {
            server.close().sync();
        }
    }
}
