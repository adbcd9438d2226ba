package io.ringwire.transport.testsuite;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.unix.tests.DetectPeerCloseWithoutReadTest;
import io.ringwire.transport.RingwireIoHandler;
import io.ringwire.transport.RingwireServerSocketChannel;
import io.ringwire.transport.RingwireSocketChannel;

/**
 * Netty's own DetectPeerCloseWithoutReadTest (netty-transport-native-unix-common-tests, which Netty's epoll and
 * io_uring modules subclass): a peer's close is seen by a channel with autoRead off, every byte first.
 */
class RingwireDetectPeerCloseWithoutReadTest extends DetectPeerCloseWithoutReadTest {
    @Override
    protected EventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(2, RingwireIoHandler.newFactory());
    }

    @Override
    protected Class<? extends ServerChannel> serverChannel() {
        return RingwireServerSocketChannel.class;
    }

    @Override
    protected Class<? extends Channel> clientChannel() {
        return RingwireSocketChannel.class;
    }
}
