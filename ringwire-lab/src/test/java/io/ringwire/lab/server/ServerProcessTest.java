package io.ringwire.lab.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lab server outlives no lab: when the lab that started it goes away without stopping it (ended by Ctrl-C or a
 * signal, killed, crashed), its end of the server's stdin closes, and the server ends itself instead of holding its
 * core, heap and port for nobody. And one that cannot bind ends with the error, instead of hanging on its loops.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerProcessTest {
    @Test
    void aServerWhoseLabIsGoneEndsItself() throws Exception {
        for (Competitor c : new Competitor[] {Competitor.RINGWIRE, Competitor.BLOCKING_VIRTUAL}) {
            Process p = new ProcessBuilder(ServerProcess.command(c, ServerProcess.freePort(), Protocol.ECHO, 1,
                ServerJvm.DEFAULT)).redirectErrorStream(true).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null && !line.startsWith("READY")) {
                    // the JVM's and the server's own lines before it
                }
                assertTrue(line != null, c + " printed READY");
                p.getOutputStream().close(); // what the kernel does to the pipe when the lab's process ends
                // a liveness bound, not a timing: the server ends within a minute or never would
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), c + " ended after its stdin closed");
                assertEquals(0, p.exitValue(), c.label());
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void aServerThatCannotBindEndsWithItsError() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            for (Protocol protocol : new Protocol[] {Protocol.ECHO, Protocol.MIXED}) {
                Process p = new ProcessBuilder(ServerProcess.command(Competitor.RINGWIRE, taken.getLocalPort(),
                    protocol, 1, ServerJvm.DEFAULT)).redirectErrorStream(true).start();
                try {
                    // a liveness bound: it ends within a minute or never would (its output fits the pipe meanwhile)
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS), protocol + " ended");
                    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertEquals(1, p.exitValue(), out);
                    assertTrue(out.contains("EADDRINUSE"), out);
                } finally {
                    p.destroyForcibly();
                }
            }
        }
    }
}
