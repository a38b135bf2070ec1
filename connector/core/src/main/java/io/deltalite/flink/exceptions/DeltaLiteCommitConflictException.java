package io.deltalite.flink.exceptions;

/**
 * Concurrent writers kept changing the partitions this checkpoint rewrote, and the commit retries
 * ran out. The message names the table, partition and checkpoint; the checkpoint is replayed after
 * the job restarts.
 */
public class DeltaLiteCommitConflictException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteCommitConflictException(String message) {
        super(message);
    }

    public DeltaLiteCommitConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
