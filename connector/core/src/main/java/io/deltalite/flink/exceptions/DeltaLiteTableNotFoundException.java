package io.deltalite.flink.exceptions;

/** There is no Delta table at the path and the sink was not allowed to create one. */
public class DeltaLiteTableNotFoundException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteTableNotFoundException(String message) {
        super(message);
    }

    public DeltaLiteTableNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
