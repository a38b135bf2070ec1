package io.deltalite.flink.exceptions;

/**
 * The Delta table uses a feature deltalite cannot write correctly (column mapping, change data
 * feed, append-only, row tracking, constraints, or a reader/writer feature Kernel cannot write).
 * The message names the feature.
 */
public class DeltaLiteUnsupportedTableException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteUnsupportedTableException(String message) {
        super(message);
    }

    public DeltaLiteUnsupportedTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
