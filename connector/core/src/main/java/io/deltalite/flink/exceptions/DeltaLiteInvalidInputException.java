package io.deltalite.flink.exceptions;

/**
 * An input record cannot be applied: a null primary key under the {@code fail} policy, a value that
 * does not fit its column, or a record too large for the buffer. Nothing of the checkpoint was
 * committed.
 */
public class DeltaLiteInvalidInputException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteInvalidInputException(String message) {
        super(message);
    }

    public DeltaLiteInvalidInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
