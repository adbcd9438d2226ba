package io.ringwire.spring.boot;

import io.netty.channel.Channel;
import io.ringwire.spring.boot.app.EchoApplication;
import io.ringwire.spring.boot.app.Payload;
import io.ringwire.transport.RingwireCounters;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the tests do with a running {@link EchoApplication}, each exchange checked whole: the bodies byte for byte,
 * the events and messages one by one. The WebClient is the application's (Boot's builder, Boot's connector); the
 * WebSocket client is made on the application's {@link ReactorResourceFactory}; the JDK's HttpClient is a plain one.
 */
final class Exchanges implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final URI base;
    private final WebClient webClient;
    private final ReactorResourceFactory resources;
    private final java.net.http.HttpClient jdk = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

    Exchanges(int port, WebClient.Builder webClients, ReactorResourceFactory resources) {
        this.base = URI.create("http://127.0.0.1:" + port);
        this.webClient = webClients.baseUrl(base.toString()).build();
        this.resources = resources;
    }

    String helloOverWebClient() {
        return webClient.get().uri("/hello").retrieve().bodyToMono(String.class).block(TIMEOUT);
    }

    String helloOverJdkClient() {
        return jdk(HttpRequest.newBuilder(base.resolve("/hello")).GET(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return what came back, checked: "ok n" when all n bytes came back as sent */
    String echoOverWebClient(long length) {
        Payload.Checker checker = new Payload.Checker();
        webClient.post().uri("/echo").contentType(MediaType.APPLICATION_OCTET_STREAM)
            .body(Payload.chunks(length).map(DefaultDataBufferFactory.sharedInstance::wrap), DataBuffer.class)
            .retrieve().bodyToFlux(DataBuffer.class)
            .doOnNext(checker::check)
            .then().block(TIMEOUT);
        return checker.toString();
    }

    /** @return the server's verdict on the body it was sent, streamed from an InputStream ("ok n") */
    String uploadOverJdkClient(long length) {
        return jdk(HttpRequest.newBuilder(base.resolve("/check"))
                .POST(HttpRequest.BodyPublishers.fromPublisher(JdkFlowAdapter.publisherToFlowPublisher(
                    Payload.chunks(length).map(ByteBuffer::wrap)))),
            HttpResponse.BodyHandlers.ofString());
    }

    /** @return the body the server streamed, checked ("ok n") */
    String downloadOverJdkClient(long length) {
        try (InputStream in = jdk(HttpRequest.newBuilder(base.resolve("/payload?length=" + length)).GET(),
                HttpResponse.BodyHandlers.ofInputStream())) {
            Payload.Checker checker = new Payload.Checker();
            checker.check(in);
            return checker.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<ServerSentEvent<String>> serverSentEvents(int count) {
        return webClient.get().uri("/events?count={count}", count).accept(MediaType.TEXT_EVENT_STREAM)
            .retrieve().bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
            .collectList().block(TIMEOUT);
    }

    /**
     * @param messages    text messages to send, all at once
     * @param onConnected called with the client's connection
     * @return the messages that came back, as many as were sent
     */
    List<String> webSocketEcho(List<String> messages, Consumer<Channel> onConnected) {
        HttpClient client = HttpClient.create(resources.getConnectionProvider()).runOn(resources.getLoopResources())
            .doOnConnected(c -> onConnected.accept(c.channel()));
        AtomicReference<List<String>> echoed = new AtomicReference<>();
        new ReactorNettyWebSocketClient(client).execute(URI.create("ws://127.0.0.1:" + base.getPort() + "/ws/echo"),
                session -> Mono.when(
                    session.send(Flux.fromIterable(messages).map(session::textMessage)),
                    session.receive().map(WebSocketMessage::getPayloadAsText).take(messages.size()).collectList()
                        .doOnNext(echoed::set)))
            .block(TIMEOUT);
        return echoed.get();
    }

    /** @return the JSON of an Actuator endpoint */
    Map<String, Object> actuator(String path) {
        return webClient.get().uri("/actuator" + path).retrieve()
            .bodyToMono(new ParameterizedTypeReference<Map<String, Object>>() { }).block(TIMEOUT);
    }

    private <T> T jdk(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) {
        try {
            HttpResponse<T> response = jdk.send(request.timeout(TIMEOUT).build(), body);
            assertEquals(200, response.statusCode(), () -> request.build() + ": " + response.body());
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        jdk.close();
    }

    /**
     * @param sent   what was sent
     * @param echoed what came back
     * @throws AssertionError naming the first message that did not come back as sent
     */
    static void assertEchoed(List<String> sent, List<String> echoed) {
        assertEquals(sent.size(), echoed == null ? 0 : echoed.size(), "messages echoed");
        for (int i = 0; i < sent.size(); i++) {
            assertTrue(sent.get(i).equals(echoed.get(i)), "message " + i + " (" + sent.get(i).length()
                + " characters) came back as " + echoed.get(i).length() + " other characters");
        }
    }

    /** @return n text messages of 1 to about 60,000 characters (WebSocket's default frame limit is 64 KiB) */
    static List<String> messages(int n) {
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            messages.add(i + ":" + "ringwire ".repeat(i * 677 % 6_600));
        }
        return messages;
    }

    /** Ringwire's counters summed over every loop in the JVM. */
    record Totals(long enters, long sqes, long cqes, long recvs, long writes) {
        static Totals now() {
            return new Totals(sum(RingwireCounters::enters), sum(RingwireCounters::sqes),
                sum(RingwireCounters::cqes), sum(RingwireCounters::recvs), sum(RingwireCounters::writes));
        }

        /** @return whether every counter grew since {@code before} */
        boolean grewSince(Totals before) {
            return enters > before.enters && sqes > before.sqes && cqes > before.cqes && recvs > before.recvs
                && writes > before.writes;
        }

        private static long sum(ToLongFunction<RingwireCounters> counter) {
            return RingwireCounters.all().stream().mapToLong(counter).sum();
        }
    }
}
