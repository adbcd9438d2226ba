package example.boot;

import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The application answers over HTTP, and Ringwire's loops received the request: the dependency alone did it. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HelloApplicationTest {
    @LocalServerPort
    int port;

    @Test
    void theRequestIsServedByRingwire() throws Exception {
        assertFalse(RingwireCounters.all().isEmpty(), "Ringwire's loops run in the application");
        long before = receivedBytes();
        HttpResponse<String> response = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("Hello, World!", response.body());
        assertTrue(receivedBytes() > before, "Ringwire's loops received the request: " + RingwireCounters.all());
    }

    private static long receivedBytes() {
        long sum = 0;
        for (RingwireCounters c : RingwireCounters.all()) {
            sum += c.recvBytes();
        }
        return sum;
    }
}
