package io.ringwire.transport;

/**
 * For tests outside this package (Netty's testsuite subclasses, in ringwire-netty-testsuite, through this module's test
 * jar): zero copy kept on where the kernel copies anyway.
 */
public final class ZeroCopyHooks {
    private ZeroCopyHooks() { }

    /** @param keep whether a channel keeps sending zero-copy after a notification said the kernel copied */
    public static void keepZeroCopyWhenCopied(boolean keep) {
        ZeroCopySends.keepWhenCopied = keep;
    }
}
