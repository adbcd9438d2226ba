package io.ringwire.micronaut.app;

import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.sse.Event;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * A Micronaut application's HTTP routes, as a user would write them:
 * <ul>
 *   <li>{@code GET /hello}: "Hello, World!"</li>
 *   <li>{@code POST /echo}: the request body back, each chunk sent on as it arrives</li>
 *   <li>{@code POST /check}: reads a {@link Payload} body as it arrives and answers with the bytes that matched
 *       ("ok 8388608") or where the first did not</li>
 *   <li>{@code GET /payload?length=n}: n bytes of {@link Payload}, streamed in 64 KiB chunks</li>
 *   <li>{@code GET /events?count=n}: n server-sent events, "event 0" to "event n-1", ids 0 to n-1</li>
 * </ul>
 */
@Controller
public class EchoController {
    public static final String HELLO = "Hello, World!";

    @Get(value = "/hello", produces = MediaType.TEXT_PLAIN)
    public String hello() {
        return HELLO;
    }

    @Post(value = "/echo", consumes = MediaType.APPLICATION_OCTET_STREAM, produces = MediaType.APPLICATION_OCTET_STREAM)
    public Publisher<byte[]> echo(@Body Publisher<byte[]> body) {
        return body;
    }

    @Post(value = "/check", consumes = MediaType.APPLICATION_OCTET_STREAM, produces = MediaType.TEXT_PLAIN)
    public Publisher<String> check(@Body Publisher<byte[]> body) {
        return Flux.from(body).reduce(new Payload.Checker(), (checker, chunk) -> {
            checker.check(chunk, 0, chunk.length);
            return checker;
        }).defaultIfEmpty(new Payload.Checker()).map(Payload.Checker::toString);
    }

    @Get(value = "/payload", produces = MediaType.APPLICATION_OCTET_STREAM)
    public Publisher<byte[]> payload(@QueryValue long length) {
        return Payload.chunks(length);
    }

    @Get(value = "/events", produces = MediaType.TEXT_EVENT_STREAM)
    public Publisher<Event<String>> events(@QueryValue int count) {
        return Flux.range(0, count).map(i -> Event.of("event " + i).id(Integer.toString(i)).name("tick"));
    }
}
