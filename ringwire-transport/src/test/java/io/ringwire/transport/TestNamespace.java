package io.ringwire.transport;

import io.ringwire.uring.Libc;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A network namespace a test creates, with only its own loopback (up), where sockets opened by a thread that entered
 * it (setns) live: nothing they send can leave the machine, and per-namespace sysctls (e.g. TCP Fast Open) can be set
 * without touching the host's. Needs root and iproute2; otherwise {@link #create} skips the test, saying which.
 */
final class TestNamespace implements AutoCloseable {
    private static final int CLONE_NEWNET = 0x40000000;
    private final String name;

    private TestNamespace(String name) {
        this.name = name;
    }

    static int run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    /**
     * @param purpose a word for its name
     * @param setup   commands to run inside it ({@code ip netns exec NAME} is prepended), e.g. sysctls
     */
    static TestNamespace create(String purpose, List<List<String>> setup) throws IOException, InterruptedException {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create a network namespace");
        assumeTrue(run("ip", "-V") == 0, "needs iproute2 (ip)");
        String name = "ringwire-" + purpose + "-" + ProcessHandle.current().pid();
        assumeTrue(run("ip", "netns", "add", name) == 0, "cannot create a network namespace");
        TestNamespace ns = new TestNamespace(name);
        boolean ok = false;
        try {
            assumeTrue(run("ip", "-n", name, "link", "set", "lo", "up") == 0, "cannot bring its loopback up");
            for (List<String> cmd : setup) {
                String[] full = new String[cmd.size() + 4];
                full[0] = "ip";
                full[1] = "netns";
                full[2] = "exec";
                full[3] = name;
                for (int i = 0; i < cmd.size(); i++) {
                    full[4 + i] = cmd.get(i);
                }
                assumeTrue(run(full) == 0, "cannot set up the namespace: " + cmd);
            }
            ok = true;
            return ns;
        } finally {
            if (!ok) {
                ns.close();
            }
        }
    }

    /**
     * Runs {@code body} on a new thread that entered the namespace (skips the test if it cannot enter it).
     *
     * @return what it returned
     */
    <T> T runInside(Callable<T> body) throws Exception {
        CompletableFuture<String> entered = new CompletableFuture<>();
        CompletableFuture<T> done = new CompletableFuture<>();
        Thread.ofPlatform().name("in-" + name).start(() -> {
            try {
                int fd = Libc.open("/var/run/netns/" + name, 0x80000 /* O_RDONLY | O_CLOEXEC */);
                if (fd < 0) {
                    throw new IOException("open /var/run/netns/" + name + ": " + fd);
                }
                try {
                    int r = Libc.setns(fd, CLONE_NEWNET);
                    if (r != 0) {
                        throw new IOException("setns: " + r);
                    }
                } finally {
                    Libc.close(fd);
                }
                entered.complete(null);
            } catch (Throwable t) {
                entered.complete(String.valueOf(t)); // (a container may let us create it but not enter it)
                return;
            }
            try {
                done.complete(body.call());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        String notEntered = entered.get(60, TimeUnit.SECONDS);
        assumeTrue(notEntered == null, () -> "cannot enter the network namespace: " + notEntered);
        return done.get(60, TimeUnit.SECONDS);
    }

    /**
     * Runs a command inside it ({@code ip netns exec NAME} is prepended).
     *
     * @return its exit status
     */
    int exec(String... cmd) throws IOException, InterruptedException {
        String[] full = new String[cmd.length + 4];
        full[0] = "ip";
        full[1] = "netns";
        full[2] = "exec";
        full[3] = name;
        System.arraycopy(cmd, 0, full, 4, cmd.length);
        return run(full);
    }

    @Override
    public void close() throws IOException {
        try {
            run("ip", "netns", "del", name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
