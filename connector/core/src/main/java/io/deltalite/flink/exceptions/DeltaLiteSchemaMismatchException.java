package io.deltalite.flink.exceptions;

/**
 * The input rows, the declared schema or the keys do not fit the Delta table: a column is missing,
 * extra, or has a type that cannot be cast. Nothing was committed.
 */
public class DeltaLiteSchemaMismatchException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteSchemaMismatchException(String message) {
        super(message);
    }

    public DeltaLiteSchemaMismatchException(String message, Throwable cause) {
        super(message, cause);
    }
}
