package io.ringwire.lab.client;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.ringwire.lab.host.DebianTool;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import io.ringwire.lab.server.ServerStats;
import io.ringwire.lettuce.RingwireLettuce;
import io.ringwire.transport.Ringwire;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The redis-client workload's measured process, one fresh JVM per run:
 * {@code LettuceClient <client> <redis port> <io threads> <mode> <size> <depth> <rate>}. Opens one Lettuce connection to
 * the redis-server on that port, checks that it runs on the client's transport (the channel Lettuce opened), starts
 * the load ({@link RedisLoad}) and prints {@code READY}; then answers the servers' lines ({@link ServerStats}: RESET,
 * STATS, LIVE, ...) and its own, {@code LOAD} (the window's figures) and {@code FINISH}, until the lab closes its
 * stdin.
 */
public final class LettuceClient {
    private LettuceClient() { }

    /**
     * @param client  which client
     * @param redis   the redis-server
     * @param threads Lettuce's I/O threads (event loops)
     * @param jvm     the JVM flags, the same as every server's
     * @param profiler the flags that load a profiler ({@link io.ringwire.lab.server.Profiling#jvmFlags}); empty for
     *                none
     * @param mode    the load ({@link RedisLoad}): set, get, pipeline or rate
     * @param size    value bytes
     * @param depth   commands in flight, or per pipelined batch
     * @param rate    commands per second at a fixed rate; 0 otherwise
     * @return the command line of the client's JVM, pinned to CPU 1 where the lab pins
     */
    public static List<String> command(Competitor client, InetSocketAddress redis, int threads, ServerJvm jvm,
                                       List<String> profiler, String mode, int size, int depth, double rate) {
        RedisLoad.Shape shape = new RedisLoad.Shape(mode, size, depth, rate);
        List<String> cmd = new ArrayList<>();
        if (ServerProcess.canPin()) {
            cmd.addAll(List.of(DebianTool.onPath("taskset"), "-c", "1"));
        }
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvm.flags());
        cmd.addAll(ServerJvm.extraFlags());
        cmd.addAll(profiler);
        cmd.addAll(client.properties()); // which of its own transports Lettuce takes
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LettuceClient.class.getName(),
            client.label(), Integer.toString(redis.getPort()), Integer.toString(threads)));
        cmd.addAll(shape.args());
        return cmd;
    }

    /**
     * @param client a Lettuce client
     * @return the channel class its connection must have: the proof that it runs on the transport its label names
     */
    static String expectedChannel(Competitor client) {
        return switch (client) {
            case LETTUCE_RINGWIRE -> "io.ringwire.transport.RingwireSocketChannel";
            case LETTUCE_EPOLL -> "io.netty.channel.epoll.EpollSocketChannel";
            case LETTUCE_IO_URING -> "io.netty.channel.uring.IoUringSocketChannel";
            default -> throw new IllegalArgumentException(client.label() + " is not a Lettuce client");
        };
    }

    /**
     * @param args client label, redis-server's port, I/O threads, then the load: mode, size, depth, rate
     * @throws Exception if the client cannot connect or start its load (the lab shows the output)
     */
    public static void main(String[] args) throws Exception {
        Competitor client = Competitor.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        RedisLoad.Shape shape = RedisLoad.Shape.parse(args, 3);
        String expected = expectedChannel(client);
        List<Channel> channels = new CopyOnWriteArrayList<>();
        ClientResources.Builder builder = ClientResources.builder().ioThreadPoolSize(threads)
            .computationThreadPoolSize(1) // the futures complete on the I/O thread; nothing is left for it to do
            .nettyCustomizer(new NettyCustomizer() {
                @Override
                public void afterChannelInitialized(Channel channel) {
                    channels.add(channel);
                }
            });
        RedisURI uri = RedisURI.builder().redis("127.0.0.1", port).withTimeout(Duration.ofSeconds(60)).build();
        RedisClient redis;
        if (client == Competitor.LETTUCE_RINGWIRE) {
            if (!Ringwire.isAvailable()) {
                throw new IllegalStateException("Ringwire is unavailable here", Ringwire.unavailabilityCause());
            }
            redis = RingwireLettuce.redisClient(RingwireLettuce.customize(builder, threads).build(), uri);
        } else {
            redis = RedisClient.create(builder.build(), uri);
        }
        StatefulRedisConnection<byte[], byte[]> connection = redis.connect(ByteArrayCodec.INSTANCE);
        List<String> seen = channels.stream().map(c -> c.getClass().getName()).toList();
        if (seen.isEmpty() || !seen.stream().allMatch(expected::equals)) {
            // a figure measured on another transport than the label says would be worse than none
            System.out.println(String.format(Locale.ROOT, "%s: Lettuce opened %s, not %s (its transport choice: "
                + "%s)", client.label(), seen, expected, String.join(" ", client.properties())));
            System.exit(2);
        }
        RedisLoad load = new RedisLoad(connection, shape);
        load.start();
        new ServerStats().serve(port, "", load); // until the lab closes stdin; then this process exits
    }
}
