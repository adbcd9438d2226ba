package io.ringwire.spring.boot.redis;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Spring Data Redis application as a user would write it (a {@link StringRedisTemplate} from Boot, Redis's address
 * from {@code spring.data.redis.*}), plus what the tests look at: the channels Lettuce opened, recorded by a
 * {@link NettyCustomizer} given to Boot's client resources through {@link ClientResourcesBuilderCustomizer}, Boot's
 * extension point.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class GreetingApplication {
    /** The channels Lettuce opened. */
    public static final class Channels implements NettyCustomizer {
        public final List<Channel> opened = new CopyOnWriteArrayList<>();

        @Override
        public void afterChannelInitialized(Channel channel) {
            opened.add(channel);
        }
    }

    @Bean
    Channels channels() {
        return new Channels();
    }

    @Bean
    ClientResourcesBuilderCustomizer recordChannels(Channels channels) {
        return builder -> builder.nettyCustomizer(channels);
    }

    /** What the application does with Redis: keeps a greeting and reads it back. */
    @Component
    public static class Greetings {
        private final StringRedisTemplate redis;

        Greetings(StringRedisTemplate redis) {
            this.redis = redis;
        }

        public String roundTrip(String key, String greeting) {
            redis.opsForValue().set(key, greeting);
            return redis.opsForValue().get(key);
        }
    }
}
