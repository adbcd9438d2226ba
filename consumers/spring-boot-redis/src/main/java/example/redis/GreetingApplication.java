package example.redis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * A Spring Data Redis application that knows nothing of Ringwire: its dependencies on ringwire-spring-boot and
 * ringwire-lettuce do the rest.
 */
@SpringBootApplication
public class GreetingApplication {
    /** Keeps greetings in Redis through Boot's StringRedisTemplate. */
    @Service
    public static class Greetings {
        private final StringRedisTemplate redis;

        Greetings(StringRedisTemplate redis) {
            this.redis = redis;
        }

        public void set(String name, String greeting) {
            redis.opsForValue().set("greeting:" + name, greeting);
        }

        public String get(String name) {
            return redis.opsForValue().get("greeting:" + name);
        }
    }

    public static void main(String[] args) {
        SpringApplication.run(GreetingApplication.class, args);
    }
}
