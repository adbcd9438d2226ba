package io.ringwire.transport;

/**
 * The one place where tests change the transport's behaviour: production classes hold no field for a test, and read
 * a hook here once where they use it. Package-private (Netty's testsuite subclasses go through the test sources'
 * {@code ZeroCopyHooks}); every hook is off unless a test sets it.
 */
final class TestHooks {
    /**
     * Fault injection: IORING_SEND_ZC_* bits added to every zero-copy SQE (an unknown one makes the kernel refuse it
     * with EINVAL); 0: none.
     */
    static volatile short zeroCopySqeFlags;

    /**
     * Whether client channels made now leave their socket to the loop they join (see
     * {@link FixedFileTable#clientSocketsInSlots()}); null: the system property decides.
     */
    static volatile Boolean clientSocketsInSlots;

    /** The loop whose next {@link #refuseSqes} reservations fail as if the kernel refused (see {@link #refuseSqes}). */
    static volatile RingwireIoHandler refusingLoop;
    /** How many more SQE reservations {@link #refusingLoop} refuses; counted down on that loop only. */
    static int refuseSqes;

    /**
     * The next {@code n} {@link RingwireIoHandler#reserveSqe()} calls of {@code loop} fail as if the kernel refused;
     * on that loop.
     */
    static void refuseSqes(RingwireIoHandler loop, int n) {
        refuseSqes = n;
        refusingLoop = loop;
    }

    private TestHooks() { }
}
