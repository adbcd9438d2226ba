package io.ringwire.lab.load;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Both load-generator engines over a Unix domain socket (the domain-echo workload): checked, clean, counted. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DomainLoadGeneratorTest {
    @TempDir
    Path dir;
    private ServerSocketChannel server;

    @AfterEach
    void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    /** A thread-per-connection echo on a socket file. */
    private UnixDomainSocketAddress echo() throws IOException {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("echo.sock"));
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(address);
        ServerSocketChannel ss = server;
        Thread.ofPlatform().daemon().start(() -> {
            try {
                for (;;) {
                    SocketChannel s = ss.accept();
                    Thread.ofPlatform().daemon().start(() -> {
                        try (s; InputStream in = Channels.newInputStream(s);
                             OutputStream out = Channels.newOutputStream(s)) {
                            in.transferTo(out);
                        } catch (IOException e) {
                            // the generator closed it
                        }
                    });
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return address;
    }

    @ParameterizedTest
    @EnumSource(LoadGenerator.Engine.class)
    void echoOverADomainSocketIsCheckedAndClean(LoadGenerator.Engine engine) throws IOException {
        assumeTrue(engine == LoadGenerator.Engine.NIO || LoadGenerator.Engine.best() == engine,
            "this kernel lacks what the io_uring generator needs");
        LoadGenerator.Result r = new LoadGenerator(echo(), LoadGenerator.Config.closed(10, 200, 4), engine)
            .run(() -> true, 0.5, () -> { });
        assertEquals(0, r.mismatches(), r::toString);
        assertEquals(0, r.errors(), r::toString);
        assertTrue(r.messages() > 0, r::toString);
    }
}
