package io.ringwire.spring.boot.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.http.client.autoconfigure.reactive.ClientHttpConnectorBuilderCustomizer;
import org.springframework.boot.http.client.reactive.ReactorClientHttpConnectorBuilder;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.WebSocketHandler;
import reactor.core.publisher.Flux;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A WebFlux application as a user would write it, plus what the tests look at: which channel classes its server and
 * its WebClient's connections are (recorded by a {@link NettyServerCustomizer} and a connector customizer, Boot's
 * extension points). Its routes:
 * <ul>
 *   <li>{@code GET /hello}: "Hello, World!"</li>
 *   <li>{@code POST /echo}: the request body back, each buffer sent on as it arrives</li>
 *   <li>{@code POST /check}: reads a {@link Payload} body as it arrives and answers with the bytes that matched
 *       ("ok 8388608") or where the first did not</li>
 *   <li>{@code GET /payload?length=n}: n bytes of {@link Payload}, streamed in 64 KiB buffers</li>
 *   <li>{@code GET /events?count=n}: n server-sent events, "event 0" to "event n-1", ids 0 to n-1</li>
 *   <li>WebSocket {@code /ws/echo}: each text message back</li>
 * </ul>
 */
@SpringBootApplication(proxyBeanMethods = false)
public class EchoApplication {
    public static final String HELLO = "Hello, World!";

    /** The channel classes the application's server and clients used. */
    public static final class Channels {
        public final Set<Class<?>> bound = ConcurrentHashMap.newKeySet();
        public final Set<Class<?>> accepted = ConcurrentHashMap.newKeySet();
        public final Set<Class<?>> connected = ConcurrentHashMap.newKeySet();
    }

    @Bean
    Channels channels() {
        return new Channels();
    }

    @Bean
    NettyServerCustomizer recordingServerChannels(Channels channels) {
        return server -> server
            .doOnBound(s -> channels.bound.add(s.channel().getClass()))
            .doOnConnection(c -> channels.accepted.add(c.channel().getClass()));
    }

    @Bean
    ClientHttpConnectorBuilderCustomizer<ReactorClientHttpConnectorBuilder> recordingClientChannels(
            Channels channels) {
        return builder -> builder.withHttpClientCustomizer(client -> client
            .doOnConnected(c -> channels.connected.add(c.channel().getClass())));
    }

    @Bean
    RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
            .GET("/hello", request -> ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).bodyValue(HELLO))
            .POST("/echo", request -> ServerResponse.ok().contentType(MediaType.APPLICATION_OCTET_STREAM)
                .body(request.bodyToFlux(DataBuffer.class), DataBuffer.class))
            .POST("/check", request -> request.bodyToFlux(DataBuffer.class)
                .reduce(new Payload.Checker(), (checker, buffer) -> {
                    checker.check(buffer);
                    return checker;
                })
                .defaultIfEmpty(new Payload.Checker())
                .flatMap(checker -> ServerResponse.ok().contentType(MediaType.TEXT_PLAIN)
                    .bodyValue(checker.toString())))
            .GET("/payload", request -> {
                long length = Long.parseLong(request.queryParam("length").orElseThrow());
                return ServerResponse.ok().contentType(MediaType.APPLICATION_OCTET_STREAM)
                    .body(Payload.chunks(length).map(DefaultDataBufferFactory.sharedInstance::wrap), DataBuffer.class);
            })
            .GET("/events", request -> {
                int count = Integer.parseInt(request.queryParam("count").orElseThrow());
                return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM)
                    .body(Flux.range(0, count).map(i -> ServerSentEvent.builder("event " + i)
                        .id(Integer.toString(i)).event("tick").build()), ServerSentEvent.class);
            })
            .build();
    }

    @Bean
    HandlerMapping webSocketRoutes() {
        WebSocketHandler echo = session -> session.send(session.receive()
            .map(message -> session.textMessage(message.getPayloadAsText())));
        return new SimpleUrlHandlerMapping(Map.of("/ws/echo", echo), -1);
    }
}
