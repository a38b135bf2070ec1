package io.deltalite.flink.internal.merge.table;

/**
 * The version this commit was going to take exists already. Usually another writer committed it; it
 * may also be this commit's own earlier attempt whose answer was lost (a store that retried a
 * conditional write that had succeeded). The caller reads the log to tell, then tries again.
 */
public final class ConcurrentCommitException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConcurrentCommitException(String message, Throwable cause) {
        super(message, cause);
    }
}
