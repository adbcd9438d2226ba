package io.ringwire.docs;

import io.ringwire.transport.RingwireIoHandlerConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/production.md's memory per loop is worked out from the settings' defaults: its arithmetic starts from the
 * defaults {@code RingwireIoHandlerConfig.builder().build()} gives, so a changed default fails here until the page
 * is worked out again (and measured: the page dates its measurement).
 */
class ProductionTest {
    @Test
    void theMemoryPerLoopStartsFromTheDefaults() {
        String page = String.join("\n", Markdown.lines(Markdown.root().resolve("docs/production.md")));
        RingwireIoHandlerConfig defaults = RingwireIoHandlerConfig.builder().build();
        List<String> problems = new ArrayList<>();
        for (String expected : List.of(
            defaults.ringEntries() + " SQEs × 64 B",
            defaults.cqEntries() + " CQEs × 16 B",
            defaults.iovecCapacity() + " iovecs × 16 B",
            defaults.fixedFiles() + " slots × 8 B")) {
            if (!page.contains(expected)) {
                problems.add("docs/production.md does not work from '" + expected + "'");
            }
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    }
}
