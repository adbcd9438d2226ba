package io.ringwire.lab;

import io.ringwire.examples.EchoServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * One competitor's echo server, in its own JVM: {@code LabServer <competitor> <port> <threads>}. Prints
 * {@code READY <port>} once it accepts connections; runs until killed. Binds 127.0.0.1 only.
 */
public final class LabServer {
    private LabServer() { }

    /**
     * @param args competitor label, port, event-loop threads
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        Competitor competitor = Competitor.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        switch (competitor) {
            case BLOCKING_PLATFORM -> blocking(address, false);
            case BLOCKING_VIRTUAL -> blocking(address, true);
            default -> netty(competitor, address, threads);
        }
    }

    private static void netty(Competitor competitor, InetSocketAddress address, int threads) throws Exception {
        // the same program as ringwire-examples' EchoServer (seed 001's handler), on the competitor's transport
        EchoServer.start(competitor.label(), address, threads);
        ready(address.getPort());
        Thread.currentThread().join();
    }

    /** Seed 004's model: a thread per connection, blocking reads and writes (platform or virtual threads). */
    private static void blocking(InetSocketAddress address, boolean virtual) throws IOException {
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(address, 4096);
            ready(address.getPort());
            for (;;) {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                builder.start(() -> echo(s));
            }
        }
    }

    private static void echo(Socket s) {
        byte[] buf = new byte[64 * 1024];
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException closed) {
            // the load generator went away
        }
    }

    private static void ready(int port) {
        System.out.println("READY " + port);
        System.out.flush();
    }
}
