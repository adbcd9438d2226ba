package io.ringwire.lab.experiment;

import io.ringwire.lab.load.LoadGenerator;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The generator's rehearsal runs both of its modes against the lab's own echo server, every byte checked. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GeneratorRehearsalTest {
    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void rehearsesClosedThenOpenLoopCleanly(LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        // a mismatch or an error against its own echo would throw; it lasts at least its two warm-ups
        double seconds = GeneratorRehearsal.run(engine);
        assertTrue(seconds >= GeneratorRehearsal.CLOSED_SECONDS + GeneratorRehearsal.OPEN_SECONDS, () -> seconds + " s");
    }
}
