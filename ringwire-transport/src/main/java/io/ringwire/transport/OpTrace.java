package io.ringwire.transport;

import io.ringwire.uring.Errno;
import io.ringwire.uring.IoUringConstants;
import io.ringwire.uring.IoUringCqe;

import java.util.Locale;

/**
 * The last operations of one channel, for finding out why a connection stalled or closed: each SQE it prepared, each
 * CQE it got and a few channel events (a read asked for, the close), with the time since the channel was made.
 * Kept only with {@code -Dringwire.trace=N}, N entries per channel; off (0) by default, and then nothing is recorded
 * and the checks on the I/O paths fold away ({@link #ON} is a constant). Read it with {@link Ringwire#trace}.
 *
 * <p>Written and read on the channel's event loop only.
 */
final class OpTrace {
    /** Entries kept per channel; 0, the default: no tracing. */
    static final int ENTRIES = Math.max(0, Integer.getInteger(Ringwire.TRACE_PROPERTY, 0));
    /** Whether channels keep a trace. */
    static final boolean ON = ENTRIES > 0;

    private static final byte SUBMIT = 0;
    private static final byte CQE = 1;
    private static final byte NOTE = 2;

    private final long born = System.nanoTime();
    private final long[] at = new long[ENTRIES];
    private final byte[] kind = new byte[ENTRIES];
    private final byte[] opcode = new byte[ENTRIES];
    private final int[] data = new int[ENTRIES];
    private final int[] res = new int[ENTRIES];
    private final int[] flags = new int[ENTRIES];
    private final String[] note = new String[ENTRIES];
    /** Entries recorded since the channel was made (the last {@link #ENTRIES} of them are kept). */
    private long count;

    /** An SQE of {@code op} with user_data data {@code d} was prepared. */
    void submitted(byte op, int d) {
        int i = next(SUBMIT);
        opcode[i] = op;
        data[i] = d;
    }

    /** A CQE of {@code op} came. */
    void completed(byte op, int r, int f, int d) {
        int i = next(CQE);
        opcode[i] = op;
        res[i] = r;
        flags[i] = f;
        data[i] = d;
    }

    /** Something the channel did that is not an SQE, e.g. {@code "close"}. */
    void note(String what) {
        note[next(NOTE)] = what;
    }

    private int next(byte k) {
        int i = (int) (count++ % ENTRIES);
        at[i] = System.nanoTime();
        kind[i] = k;
        note[i] = null;
        return i;
    }

    /** @return the entries kept, oldest first, one per line */
    String describe() {
        StringBuilder sb = new StringBuilder();
        long first = Math.max(0, count - ENTRIES);
        if (first > 0) {
            sb.append("(").append(first).append(" earlier entries dropped)\n");
        }
        for (long n = first; n < count; n++) {
            int i = (int) (n % ENTRIES);
            sb.append(String.format(Locale.ROOT, "%+10.3f ms  ", (at[i] - born) / 1e6));
            switch (kind[i]) {
                case SUBMIT -> sb.append("submit ").append(IoUringConstants.opName(opcode[i]))
                    .append(" data=").append(data[i]);
                case CQE -> {
                    sb.append("cqe    ").append(IoUringConstants.opName(opcode[i])).append(" data=").append(data[i])
                        .append(" res=").append(res[i]);
                    if (res[i] < 0) {
                        sb.append(" (").append(Errno.name(res[i])).append(')');
                    }
                    appendFlags(sb, flags[i]);
                }
                default -> sb.append(note[i]);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void appendFlags(StringBuilder sb, int f) {
        if (IoUringCqe.hasBuffer(f)) {
            sb.append(" buffer=").append(IoUringCqe.bufferId(f));
        }
        if (IoUringCqe.hasMore(f)) {
            sb.append(" more");
        }
        if ((f & IoUringConstants.IORING_CQE_F_SOCK_NONEMPTY) != 0) {
            sb.append(" sock-nonempty");
        }
        if ((f & IoUringConstants.IORING_CQE_F_NOTIF) != 0) {
            sb.append(" notif");
        }
    }
}
