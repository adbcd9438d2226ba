package io.ringwire.lab.server;

import io.ringwire.examples.HttpHelloServer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import java.net.InetSocketAddress;

/**
 * The http workload's Spring Boot WebFlux servers: a WebFlux application as a user writes one, a handler answering
 * every request with {@link HttpHelloServer#BODY} as text/plain, on Boot's Reactor Netty server. With
 * ringwire-spring-boot on the class path it runs on Ringwire ({@code webflux-ringwire}); with
 * {@code ringwire.enabled=false} on Reactor Netty's own choice, epoll here ({@code webflux-epoll}: Reactor Netty 1.3
 * takes io_uring only from Netty's incubator, which the lab does not have). Either way with
 * {@code reactor.netty.ioWorkerCount} event loops, Reactor Netty's setting and the default of ringwire.loops.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WebFluxHelloServer {
    @Bean
    RouterFunction<ServerResponse> hello() {
        return RouterFunctions.route(RequestPredicates.all(),
            request -> ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).bodyValue(HttpHelloServer.BODY));
    }

    /**
     * @param ringwire whether the application runs on Ringwire (else on Reactor Netty's default transport)
     * @param address  where to listen
     * @param threads  event loops
     */
    static void start(boolean ringwire, InetSocketAddress address, int threads) {
        // read once, when Reactor Netty's LoopResources class initialises: before the application starts
        System.setProperty("reactor.netty.ioWorkerCount", Integer.toString(threads));
        new SpringApplicationBuilder(WebFluxHelloServer.class)
            .web(WebApplicationType.REACTIVE)
            .bannerMode(org.springframework.boot.Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(
                "server.address=" + address.getHostString(),
                "server.port=" + address.getPort(),
                "ringwire.enabled=" + ringwire,
                "logging.level.root=warn",
                "logging.level.io.ringwire=info") // the line that says whether it runs on Ringwire
            .run();
    }
}
