package io.ringwire.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.ringwire.transport.Ringwire;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server and client made with {@link RingwireGrpc}'s helpers, run in {@link SeccompChild}'s child JVM: one
 * unary echo call on loopback. Prints the transport chosen and the answer as {@code key=value} lines.
 */
public final class FallbackGrpcApp {
    private FallbackGrpcApp() { }

    public static void main(String[] args) throws Exception {
        MethodDescriptor.Marshaller<byte[]> bytes = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(byte[] value) {
                return new ByteArrayInputStream(value);
            }

            @Override
            public byte[] parse(InputStream stream) {
                try {
                    return stream.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        MethodDescriptor<byte[], byte[]> echo = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("fallback.Echo/Echo")
            .setRequestMarshaller(bytes).setResponseMarshaller(bytes).build();
        ServerServiceDefinition service = ServerServiceDefinition.builder("fallback.Echo")
            .addMethod(echo, ServerCalls.asyncUnaryCall((request, response) -> {
                response.onNext(request);
                response.onCompleted();
            })).build();
        System.out.println("kind=" + Ringwire.bestTransport().kind());
        EventLoopGroup group = RingwireGrpc.newEventLoopGroup(1);
        Server server = RingwireGrpc.serverBuilder(new InetSocketAddress("127.0.0.1", 0), group)
            .addService(service).build().start();
        ManagedChannel channel = RingwireGrpc.channelBuilder(server.getListenSockets().get(0), group)
            .usePlaintext().build();
        try {
            byte[] answer = ClientCalls.blockingUnaryCall(channel, echo, CallOptions.DEFAULT.withDeadlineAfter(60,
                TimeUnit.SECONDS), "hello".getBytes(StandardCharsets.US_ASCII));
            System.out.println("echo=" + new String(answer, StandardCharsets.US_ASCII));
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        System.out.flush();
        System.exit(0);
    }
}
