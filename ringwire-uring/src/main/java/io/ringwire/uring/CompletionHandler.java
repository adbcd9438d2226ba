package io.ringwire.uring;

/**
 * Receives CQEs as {@link CompletionQueue#drain} reads them: the three fields of a {@code struct io_uring_cqe},
 * no per-CQE object.
 */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * Handles one completion. The CQE's slot is released after the batch, so nothing here may keep a reference to it.
     *
     * @param userData the SQE's user_data
     * @param res      the result, or {@code -errno}
     * @param flags    {@code IORING_CQE_F_*}
     */
    void complete(long userData, int res, int flags);
}
