package io.ringwire.transport.testsuite;

import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The testsuite's TLS classes (SocketSslEchoTest, SocketSslGreetingTest, SocketStartTlsTest,
 * SocketSslSessionReuseTest, ...) run with Netty's OpenSSL engine beside the JDK's only where netty-tcnative loads, and
 * would otherwise quietly run with the JDK's alone: this fails instead. The engine is BoringSSL, which has no
 * renegotiation, so SocketSslClientRenegotiateTest's cases skip themselves (its assumption
 * {@code OpenSsl.isRenegotiationSupported()}), on Netty's own transports as here.
 */
class OpenSslEngineTest {
    @Test
    void theOpenSslEngineLoadsSoTheTlsClassesRunWithBothEngines() {
        assertTrue(OpenSsl.isAvailable(), () -> "netty-tcnative did not load: " + OpenSsl.unavailabilityCause());
    }

    @Test
    void boringSslHasNoRenegotiationSoTheRenegotiationCasesSkip() {
        assertFalse(OpenSsl.isRenegotiationSupported(), "renegotiation is supported: the renegotiation cases run");
    }
}
