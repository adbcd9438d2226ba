package example.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.ringwire.grpc.RingwireGrpc;
import io.ringwire.transport.RingwireCounters;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A unary gRPC call, server and channel built as the guide shows: on Ringwire's loops, counted by them. */
class GrpcOnRingwireTest {
    /** Bytes as they are: a service without generated stubs. */
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
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

    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("example.Echo/Echo")
        .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    @Test
    void aUnaryCallGoesThroughRingwire() throws Exception {
        ServerServiceDefinition echo = ServerServiceDefinition.builder("example.Echo")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                response.onNext(request);
                response.onCompleted();
            })).build();
        EventLoopGroup group = RingwireGrpc.newEventLoopGroup(2);
        Server server = RingwireGrpc.serverBuilder(new InetSocketAddress("127.0.0.1", 0), group)
            .addService(echo).build().start();
        ManagedChannel channel = RingwireGrpc.channelBuilder(server.getListenSockets().get(0), group)
            .usePlaintext().build();
        try {
            byte[] request = new byte[256 * 1024];
            new Random(3).nextBytes(request);
            byte[] reply = ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, request);
            assertArrayEquals(request, reply);
            long received = 0;
            for (RingwireCounters c : RingwireCounters.all()) {
                received += c.recvBytes();
            }
            assertTrue(received >= 2L * request.length, "Ringwire's loops carried the call both ways: "
                + RingwireCounters.all());
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
