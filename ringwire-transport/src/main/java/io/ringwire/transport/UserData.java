package io.ringwire.transport;

/**
 * The 64-bit user_data every Ringwire SQE carries, and its CQE brings back.
 *
 * <pre>
 *  63                              32 31        24 23                     0
 * +----------------------------------+------------+------------------------+
 * |        registration id           |   opcode   |          data          |
 * +----------------------------------+------------+------------------------+
 * </pre>
 * The registration id names the channel (0 is the handler itself: its wake-up read and shutdown markers); the
 * opcode is the SQE's {@code IORING_OP_*}, so a CQE is dispatched without a look-up table per op; data is 24 bits
 * for the op's own use (e.g. a write sequence). Never a pointer into the Java heap.
 */
final class UserData {
    private UserData() { }

    /** Registration id of the handler's own operations. */
    public static final int HANDLER_ID = 0;
    /** Mask of the data field. */
    public static final int DATA_MASK = 0xFF_FFFF;

    /**
     * @param id     registration id
     * @param opcode {@code IORING_OP_*}
     * @param data   24 bits
     * @return the packed user_data
     */
    public static long encode(int id, byte opcode, int data) {
        return ((long) id << 32) | ((long) (opcode & 0xFF) << 24) | (data & DATA_MASK);
    }

    /**
     * @param userData packed
     * @return the registration id
     */
    public static int id(long userData) {
        return (int) (userData >>> 32);
    }

    /**
     * @param userData packed
     * @return the opcode
     */
    public static byte opcode(long userData) {
        return (byte) (userData >>> 24);
    }

    /**
     * @param userData packed
     * @return the 24-bit data
     */
    public static int data(long userData) {
        return (int) userData & DATA_MASK;
    }
}
