package io.ringwire.lab.soak;

import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak's short version, as CI runs it: a few periods of the mixed load against a Ringwire server serving every
 * channel type (TCP, UDP, a Unix domain socket, files, TLS, QUIC); every load runs and every byte comes back, and after
 * each period the server's descriptors are back to where they started and the binding's native memory has not moved.
 * (The long run and its RSS over time are in docs/benchmarks.md.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SoakTest {
    @Test
    void aShortSoakOfRingwireStaysFlat() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        // periods of 5 s: a connection unanswered for a whole period (a datagram for half of one) counts as an
        // error, so they are long enough that a busy machine's pause is not one
        Soak soak = new Soak(Competitor.RINGWIRE, 0.25, 5, new PrintStream(text, true, StandardCharsets.UTF_8));
        List<Soak.Sample> samples = soak.run();
        String printed = text.toString(StandardCharsets.UTF_8);
        assertTrue(samples.size() >= 3, printed);
        for (Soak.Sample s : samples) {
            assertEquals(List.of("rpc", "open", "udp", "domain", "files", "tls", "quic"),
                List.copyOf(s.rates().keySet()), printed);
            assertTrue(s.rates().values().stream().allMatch(r -> r > 0) && s.churned() > 0,
                () -> "every load ran: " + printed);
            assertTrue(s.nativeBytes() > 0, () -> "the server reported the binding's native memory: " + printed);
        }
        assertEquals(List.of(), soak.problems(samples), printed);
    }

    private static final Map<String, Double> RATES = Map.of("rpc", 1.0);

    @Test
    void problemsAreNamed() {
        Soak.Sample ok = new Soak.Sample(0, RATES, 1, 0, 0, 100_000, 20, 1, 1, 1000);
        assertEquals(List.of(), Soak.problems(List.of(ok, ok, ok, ok, ok), 20));
        Soak.Sample leakyFd = new Soak.Sample(0, RATES, 1, 0, 0, 100_000, 21, 1, 1, 1000);
        assertTrue(Soak.problems(List.of(ok, leakyFd), 20).get(0).startsWith("descriptors did not come back"));
        Soak.Sample grown = new Soak.Sample(0, RATES, 1, 0, 0, 200_000, 20, 1, 1, 1000);
        assertTrue(Soak.problems(List.of(ok, ok, ok, grown, grown), 20).get(0).startsWith("RSS still growing"));
        // the first period is warm-up, and four judged periods are the least that can show growth
        assertEquals(List.of(), Soak.problems(List.of(grown, ok, ok, ok, ok), 20));
        assertEquals(List.of(), Soak.problems(List.of(ok, ok, grown, grown), 20));
        Soak.Sample failed = new Soak.Sample(0, RATES, 1, 3, 0, 100_000, 20, 1, 1, 1000);
        assertTrue(Soak.problems(List.of(failed), 20).get(0).startsWith("3 errors"));
    }

    @Test
    void theReadyLineNamesTheMixedServersOtherListeners() {
        assertEquals(Map.of(), ServerProcess.otherPorts("READY 4000"));
        assertEquals(List.of("files", "tls", "quic"),
            List.copyOf(ServerProcess.otherPorts("READY 4000 files=4001 tls=4002 quic=4003").keySet()));
        assertEquals(4003, ServerProcess.otherPorts("READY 4000 files=4001 tls=4002 quic=4003").get("quic"));
    }

    @Test
    void aSoakRunsTheSamplesItsLengthHoldsHoweverLongEachTakes() {
        assertEquals(3, Soak.periods(0.25, 5));
        assertEquals(20, Soak.periods(10, 30));
        assertEquals(1, Soak.periods(0.01, 30), "at least one");
    }
}
