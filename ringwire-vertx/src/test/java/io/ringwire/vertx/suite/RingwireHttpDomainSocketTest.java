package io.ringwire.vertx.suite;

import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.tests.http.HttpDomainSocketTest;
import org.junit.BeforeClass;
import org.junit.Ignore;
import org.junit.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.SocketException;

/**
 * Vert.x's HttpDomainSocketTest (HTTP servers on Unix domain sockets, a client to each) on Ringwire. Its two tests make
 * their own Vert.x instances with {@code Vertx.vertx(...)}, past the hook the other classes override: the native one
 * here makes it on Ringwire instead, and the JDK one, which tests Vert.x's NIO transport, does not run.
 */
public class RingwireHttpDomainSocketTest extends HttpDomainSocketTest {
    @BeforeClass
    public static void ownNetworkOnly() throws SocketException {
        OnRingwire.requireOwnNetwork();
    }

    @Test
    @Override
    public void testListenDomainSocketAddressNative() throws Exception {
        VertxInternal vx = (VertxInternal) vertx(() -> OnRingwire.build(new VertxOptions()));
        Method test = HttpDomainSocketTest.class.getDeclaredMethod("testListenDomainSocketAddress",
            VertxInternal.class);
        test.setAccessible(true);
        try {
            test.invoke(this, vx);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }

    @Ignore("tests Vert.x's NIO transport")
    @Test
    @Override
    public void testListenDomainSocketAddressJdk() {
    }
}
