package io.ringwire.transport;

import io.netty.channel.ChannelException;
import io.ringwire.uring.NativeIoException;
import io.ringwire.uring.Sockets;

/** Int socket options with Netty's exception convention ({@link ChannelException} on failure). */
final class SocketOptions {
    private SocketOptions() { }

    static int get(int fd, int level, int name) {
        try {
            return Sockets.getInt(fd, level, name);
        } catch (NativeIoException e) {
            throw new ChannelException(e);
        }
    }

    static void set(int fd, int level, int name, int value) {
        try {
            Sockets.setInt(fd, level, name, value);
        } catch (NativeIoException e) {
            throw new ChannelException(e);
        }
    }

    static boolean getBoolean(int fd, int level, int name) {
        return get(fd, level, name) != 0;
    }

    static void setBoolean(int fd, int level, int name, boolean value) {
        set(fd, level, name, value ? 1 : 0);
    }
}
