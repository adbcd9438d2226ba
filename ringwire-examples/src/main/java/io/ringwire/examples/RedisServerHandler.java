package io.ringwire.examples;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A key-value store speaking the Redis protocol through Netty's redis codec: SET, GET, PING, and an empty answer to
 * CONFIG (what redis-benchmark asks first). Enough for redis-benchmark's SET and GET runs; not a Redis.
 * Shared by all connections of one server; it knows nothing of the transport.
 */
@Sharable
public final class RedisServerHandler extends ChannelInboundHandlerAdapter {
    private static final SimpleStringRedisMessage OK = new SimpleStringRedisMessage("OK");
    private static final SimpleStringRedisMessage PONG = new SimpleStringRedisMessage("PONG");

    private final Map<String, byte[]> store = new ConcurrentHashMap<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            ctx.write(answer(msg));
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private RedisMessage answer(Object msg) {
        if (!(msg instanceof ArrayRedisMessage array) || array.isNull() || array.children().isEmpty()) {
            return new ErrorRedisMessage("ERR expected an array of bulk strings");
        }
        List<RedisMessage> args = array.children();
        for (RedisMessage arg : args) {
            if (!(arg instanceof FullBulkStringRedisMessage)) {
                return new ErrorRedisMessage("ERR expected an array of bulk strings");
            }
        }
        String command = text(args.get(0)).toUpperCase(Locale.ROOT);
        switch (command) {
            case "SET" -> {
                if (args.size() < 3) {
                    return new ErrorRedisMessage("ERR wrong number of arguments for 'set' command");
                }
                store.put(text(args.get(1)), ByteBufUtil.getBytes(((FullBulkStringRedisMessage) args.get(2)).content()));
                return OK;
            }
            case "GET" -> {
                if (args.size() != 2) {
                    return new ErrorRedisMessage("ERR wrong number of arguments for 'get' command");
                }
                byte[] value = store.get(text(args.get(1)));
                return value == null ? FullBulkStringRedisMessage.NULL_INSTANCE
                    : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value));
            }
            case "PING" -> {
                return PONG;
            }
            case "CONFIG" -> {
                return new ArrayRedisMessage(Collections.emptyList());
            }
            default -> {
                return new ErrorRedisMessage("ERR unknown command '" + command + "'");
            }
        }
    }

    private static String text(RedisMessage bulk) {
        return ((FullBulkStringRedisMessage) bulk).content().toString(StandardCharsets.UTF_8);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
