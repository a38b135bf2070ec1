package io.deltalite.flink.internal.merge.table;

/**
 * The store failed while a commit was being written (an I/O error during or after writing the log
 * file): the commit may or may not have landed. Only reading the log tells.
 */
public final class CommitOutcomeUnknownException extends Exception {
    private static final long serialVersionUID = 1L;

    public CommitOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
