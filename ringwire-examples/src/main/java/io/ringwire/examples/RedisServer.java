package io.ringwire.examples;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;

import java.net.InetSocketAddress;

/**
 * The server of a 2021 critique of Netty's incubator io_uring transport ("如何评价Netty封装的io_uring?"), which drove
 * it with redis-benchmark: Netty's redis codec with a SET/GET store ({@link RedisServerHandler}), on any transport.
 * The lab's {@code redis} workload starts it on every transport and drives it with the real redis-benchmark.
 */
public final class RedisServer {
    private RedisServer() { }

    /**
     * @param args optional port (default 6379), thread count (1) and transport (ringwire)
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        Transports.serve(args, 6379, "redis server", RedisServer::start);
    }

    /**
     * @param transport one of {@link Transports#NAMES}
     * @param address   where to listen
     * @param threads   event-loop threads
     * @return the bound server channel
     * @throws InterruptedException if interrupted while binding
     */
    public static Channel start(String transport, InetSocketAddress address, int threads)
        throws InterruptedException {
        RedisServerHandler store = new RedisServerHandler();
        return Transports.startServer(transport, address, threads, new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new RedisDecoder(), new RedisBulkStringAggregator(), new RedisArrayAggregator(),
                    new RedisEncoder(), store);
            }
        });
    }
}
