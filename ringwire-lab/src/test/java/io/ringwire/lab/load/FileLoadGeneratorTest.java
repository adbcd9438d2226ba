package io.ringwire.lab.load;

import io.ringwire.examples.FileServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file-serving generator against a small in-process server: files counted and byte-checked, a bad byte caught. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileLoadGeneratorTest {
    private ServerSocket server;

    @AfterEach
    void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    /** Serves FileServer's files; flips one byte of every answer when {@code corrupt}. */
    private InetSocketAddress serve(boolean corrupt) throws IOException {
        server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        ServerSocket ss = server;
        Thread.ofPlatform().daemon().start(() -> {
            try {
                for (;;) {
                    Socket s = ss.accept();
                    Thread.ofPlatform().daemon().start(() -> {
                        try (s; DataInputStream in = new DataInputStream(s.getInputStream());
                             OutputStream out = s.getOutputStream()) {
                            for (;;) {
                                long size = in.readLong();
                                in.readByte();
                                byte[] file = Files.readAllBytes(FileServer.file(size).toPath());
                                if (corrupt) {
                                    file[file.length / 2] ^= 1;
                                }
                                out.write(file);
                            }
                        } catch (IOException e) {
                            // the generator closed it
                        }
                    });
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
    }

    @Test
    void filesAreCountedAndChecked() throws IOException {
        LoadGenerator.Result r = new FileLoadGenerator(serve(false), 4, 100_000, false)
            .run(() -> true, 0.5, () -> { });
        assertTrue(r.messages() > 0, r::toString);
        assertEquals(0, r.mismatches(), r::toString);
        assertEquals(0, r.errors(), r::toString);
    }

    @Test
    void aWrongByteIsCaught() throws IOException {
        LoadGenerator.Result r = new FileLoadGenerator(serve(true), 2, 100_000, false)
            .run(() -> true, 0.5, () -> { });
        assertTrue(r.messages() > 0, r::toString);
        assertTrue(r.mismatches() >= r.messages(), r::toString);
    }
}
