package io.ringwire.examples;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * The examples' TLS identity: a self-signed EC certificate for localhost and its key, in this module's resources
 * ({@code example-cert.pem}, {@code example-key.pem}), for the examples and the lab only. Clients trust it blindly.
 *
 * @param certificate the certificate
 * @param key         its private key
 */
public record ExampleCertificate(X509Certificate certificate, PrivateKey key) {
    /** @return the certificate and key, loaded from the resources */
    public static ExampleCertificate load() {
        try {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(resource("example-cert.pem")));
            String pem = new String(resource("example-key.pem"), StandardCharsets.US_ASCII)
                .replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            return new ExampleCertificate(cert, key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the example's certificate does not load", e);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = ExampleCertificate.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
