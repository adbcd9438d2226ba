package io.ringwire.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A JVM started without native access for Ringwire gets Ringwire's one-sentence explanation of which flag to add,
 * before the JDK's own warning; one that refuses native access has Ringwire unavailable, saying the same.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeAccessTest {

    private static String run(String... jvmOptions) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NativeAccessProgram.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the program ended");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void withoutNativeAccessRingwireSaysWhichFlagToAddBeforeTheJdkWarns() throws Exception {
        String out = run();
        assertTrue(out.contains(NativeAccess.ADVICE), "Ringwire's sentence:\n" + out);
        assertTrue(out.contains("AVAILABLE true") && out.contains("LOOP RAN"), "it still runs (warned):\n" + out);
        int ours = out.indexOf(NativeAccess.ADVICE);
        int jdks = out.indexOf("WARNING: A restricted method");
        assertTrue(jdks < 0 || ours < jdks, "Ringwire's sentence comes first:\n" + out);
    }

    @Test
    void aJvmThatRefusesNativeAccessHasRingwireUnavailableSayingWhy() throws Exception {
        assumeTrue(Runtime.version().feature() >= 24, "--illegal-native-access is JDK 24's");
        String out = run("--illegal-native-access=deny");
        assertTrue(out.contains("AVAILABLE false"), out);
        assertTrue(out.contains("CAUSE this JVM refuses native access: " + NativeAccess.ADVICE),
            out);
    }

    @Test
    void withNativeAccessNothingIsSaid() throws Exception {
        String out = run("--enable-native-access=ALL-UNNAMED");
        assertTrue(out.contains("LOOP RAN"), out);
        assertTrue(!out.contains(NativeAccess.ADVICE), out);
    }
}
