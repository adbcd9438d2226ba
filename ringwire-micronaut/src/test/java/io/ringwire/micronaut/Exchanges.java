package io.ringwire.micronaut;

import io.micronaut.core.io.buffer.ByteBuffer;
import io.micronaut.core.io.buffer.ReferenceCounted;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.StreamingHttpClient;
import io.micronaut.http.client.sse.SseClient;
import io.micronaut.http.sse.Event;
import io.micronaut.websocket.WebSocketClient;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.ClientWebSocket;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.ringwire.micronaut.app.Payload;
import io.ringwire.transport.RingwireCounters;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the tests do with a running application, each exchange checked whole: the bodies byte for byte, the events
 * and messages one by one. Micronaut's clients are made by the application's context (its HTTP, streaming, SSE and
 * WebSocket clients, on its event loops); the JDK's HttpClient is a plain one.
 */
final class Exchanges implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final URI base;
    private final HttpClient http;
    private final StreamingHttpClient streaming;
    private final SseClient sse;
    private final WebSocketClient webSocket;
    private final java.net.http.HttpClient jdk = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

    Exchanges(URL base, HttpClient http, StreamingHttpClient streaming, SseClient sse, WebSocketClient webSocket) {
        this.base = URI.create(base.toString());
        this.http = http;
        this.streaming = streaming;
        this.sse = sse;
        this.webSocket = webSocket;
    }

    String helloOverMicronautClient() {
        return http.toBlocking().retrieve("/hello");
    }

    String helloOverJdkClient() {
        return jdk(java.net.http.HttpRequest.newBuilder(base.resolve("/hello")).GET(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** @return what came back through Micronaut's streaming client, checked: "ok n" when all n bytes came back */
    String echoOverMicronautClient(long length) {
        Payload.Checker checker = new Payload.Checker();
        Flux.from(streaming.dataStream(HttpRequest.POST("/echo", Payload.chunks(length))
                .contentType(MediaType.APPLICATION_OCTET_STREAM_TYPE)))
            .doOnNext(buffer -> {
                try {
                    byte[] b = buffer.toByteArray();
                    checker.check(b, 0, b.length);
                } finally {
                    release(buffer);
                }
            })
            .then().block(TIMEOUT);
        return checker.toString();
    }

    /** @return the server's verdict on the body the JDK's client streamed to it ("ok n") */
    String uploadOverJdkClient(long length) {
        return jdk(java.net.http.HttpRequest.newBuilder(base.resolve("/check"))
                .header("Content-Type", MediaType.APPLICATION_OCTET_STREAM)
                .POST(java.net.http.HttpRequest.BodyPublishers.fromPublisher(JdkFlowAdapter.publisherToFlowPublisher(
                    Payload.chunks(length).map(java.nio.ByteBuffer::wrap)))),
            HttpResponse.BodyHandlers.ofString());
    }

    /** @return the body the server streamed to the JDK's client, checked ("ok n") */
    String downloadOverJdkClient(long length) {
        try (InputStream in = jdk(java.net.http.HttpRequest.newBuilder(base.resolve("/payload?length=" + length))
                .GET(), HttpResponse.BodyHandlers.ofInputStream())) {
            Payload.Checker checker = new Payload.Checker();
            checker.check(in);
            return checker.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Event<String>> serverSentEvents(int count) {
        return Flux.from(sse.eventStream("/events?count=" + count, String.class)).collectList().block(TIMEOUT);
    }

    /** @return the messages that came back, as many as were sent */
    List<String> webSocketEcho(List<String> messages) throws InterruptedException {
        EchoClient client = Mono.from(webSocket.connect(EchoClient.class, "/ws/echo")).block(TIMEOUT);
        assertNotNull(client);
        try {
            for (String m : messages) {
                client.send(m);
            }
            List<String> echoed = new ArrayList<>();
            for (int i = 0; i < messages.size(); i++) {
                String m = client.received.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertNotNull(m, () -> "message " + echoed.size() + " of " + messages.size() + " did not come back");
                echoed.add(m);
            }
            return echoed;
        } finally {
            client.close();
        }
    }

    /** The WebSocket client: Micronaut implements {@link #send} and calls {@link #onMessage}. */
    @ClientWebSocket
    abstract static class EchoClient implements AutoCloseable {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        volatile WebSocketSession session;

        @OnOpen
        void onOpen(WebSocketSession session) {
            this.session = session;
        }

        @OnMessage
        void onMessage(String message) {
            received.add(message);
        }

        abstract void send(String message);

        @Override
        public void close() {
            session.close();
        }
    }

    private <T> T jdk(java.net.http.HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) {
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

    private static void release(ByteBuffer<?> buffer) {
        if (buffer instanceof ReferenceCounted counted) {
            counted.release();
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
        assertEquals(sent.size(), echoed.size(), "messages echoed");
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
