package io.ringwire.transport;

/**
 * What tests set to steer a loop: switches and fault injection, kept out of the production classes' fields. Production
 * code only reads them; left alone they change nothing.
 */
final class LoopTestHooks {
    private LoopTestHooks() { }

    /** Whether client channels made now leave their socket to their loop; null: the system property decides. */
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
}
