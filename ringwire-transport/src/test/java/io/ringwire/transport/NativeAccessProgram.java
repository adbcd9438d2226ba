package io.ringwire.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * The program {@link NativeAccessTest} starts in JVMs without native access: prints whether Ringwire is available and
 * why not, and where it is, runs a loop once.
 */
public final class NativeAccessProgram {
    private NativeAccessProgram() { }

    public static void main(String[] args) throws Exception {
        Throwable cause = Ringwire.unavailabilityCause();
        System.out.println("AVAILABLE " + (cause == null));
        if (cause != null) {
            System.out.println("CAUSE " + cause.getMessage());
            return;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RingwireIoHandler.newFactory());
        group.next().submit(() -> { }).sync();
        group.shutdownGracefully().sync();
        System.out.println("LOOP RAN");
    }
}
