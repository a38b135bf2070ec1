package io.deltalite.flink.internal.merge;

/**
 * Another writer committed the version this commit was going to take. The commit had no effect; the
 * caller reloads the table and tries again.
 */
public final class ConcurrentCommitException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConcurrentCommitException(String message, Throwable cause) {
        super(message, cause);
    }
}
