package io.deltalite.flink.exceptions;

/**
 * Base class of every error deltalite reports. The message always says what failed, on which table
 * (and partition, file or checkpoint where that applies), why, and what to do about it.
 */
public class DeltaLiteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteException(String message) {
        super(message);
    }

    public DeltaLiteException(String message, Throwable cause) {
        super(message, cause);
    }
}
