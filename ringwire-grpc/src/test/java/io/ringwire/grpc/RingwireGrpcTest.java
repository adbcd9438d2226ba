package io.ringwire.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.EventExecutor;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC-java's Netty transport on Ringwire's event loops and channels: unary and bidirectional streaming calls over
 * TCP and over a Unix domain socket, with the bytes counted by Ringwire's loops (so gRPC did not fall back to its
 * own choice of transport). The service is defined by hand (strings, no generated code).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingwireGrpcTest {
    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private static final MethodDescriptor<String, String> GREET = MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("ringwire.Test/Greet")
        .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    private static final MethodDescriptor<String, String> SHOUT = MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("ringwire.Test/Shout")
        .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    private static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("ringwire.Test")
            .addMethod(GREET, ServerCalls.asyncUnaryCall((String name, StreamObserver<String> out) -> {
                out.onNext("hello, " + name);
                out.onCompleted();
            }))
            .addMethod(SHOUT, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<String>() {
                @Override
                public void onNext(String word) {
                    out.onNext(word.toUpperCase(Locale.ROOT));
                }

                @Override
                public void onError(Throwable t) {
                    out.onError(t);
                }

                @Override
                public void onCompleted() {
                    out.onCompleted();
                }
            }))
            .build();
    }

    private EventLoopGroup group;

    @BeforeEach
    void startLoops() {
        group = RingwireGrpc.newEventLoopGroup(2);
    }

    @AfterEach
    void stopLoops() throws InterruptedException {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    void unaryAndBidiStreamingCallsOverTcp() throws Exception {
        callsWork(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @Test
    void unaryAndBidiStreamingCallsOverADomainSocket(@TempDir Path dir) throws Exception {
        callsWork(new DomainSocketAddress(dir.resolve("grpc.sock").toFile()));
    }

    private void callsWork(SocketAddress bindAddress) throws Exception {
        Server server = RingwireGrpc.serverBuilder(bindAddress, group).addService(service()).build().start();
        ManagedChannel channel = null;
        try {
            SocketAddress address = server.getListenSockets().get(0);
            channel = RingwireGrpc.channelBuilder(address, group).usePlaintext().build();

            assertEquals("hello, ringwire", ClientCalls.blockingUnaryCall(channel, GREET, CallOptions.DEFAULT,
                "ringwire"));

            List<String> words = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                words.add("word" + i);
            }
            List<String> answers = new ArrayList<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(SHOUT, CallOptions.DEFAULT), new StreamObserver<String>() {
                    @Override
                    public void onNext(String value) {
                        synchronized (answers) {
                            answers.add(value);
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
            for (String w : words) {
                requests.onNext(w);
            }
            requests.onCompleted();
            done.get(30, TimeUnit.SECONDS);
            synchronized (answers) {
                assertEquals(words.stream().map(w -> w.toUpperCase(Locale.ROOT)).toList(), answers,
                    "every message answered, in order");
            }
            assertTrue(ringwireReceives() > 0, "the calls went through Ringwire's loops");
        } finally {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Receives counted by the group's loops, read on each loop (the counters are its plain fields). */
    private long ringwireReceives() throws Exception {
        long total = 0;
        for (EventExecutor e : group) {
            EventLoop loop = (EventLoop) e;
            RingwireCounters c = RingwireCounters.of(loop);
            total += loop.submit(c::recvs).get();
        }
        return total;
    }
}
