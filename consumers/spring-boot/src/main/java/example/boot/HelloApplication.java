package example.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/** A WebFlux application that knows nothing of Ringwire: its dependency on ringwire-spring-boot does the rest. */
@SpringBootApplication
public class HelloApplication {
    @Bean
    RouterFunction<ServerResponse> hello() {
        return RouterFunctions.route().GET("/hello", request -> ServerResponse.ok().bodyValue("Hello, World!"))
            .build();
    }

    public static void main(String[] args) {
        SpringApplication.run(HelloApplication.class, args);
    }
}
