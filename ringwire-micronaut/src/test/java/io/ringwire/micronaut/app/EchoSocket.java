package io.ringwire.micronaut.app;

import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.ServerWebSocket;
import org.reactivestreams.Publisher;

/** WebSocket {@code /ws/echo}: each text message back. */
@ServerWebSocket("/ws/echo")
public class EchoSocket {
    @OnMessage
    public Publisher<String> onMessage(String message, WebSocketSession session) {
        return session.send(message);
    }
}
