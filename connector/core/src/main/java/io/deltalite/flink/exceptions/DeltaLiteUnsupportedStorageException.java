package io.deltalite.flink.exceptions;

/**
 * The storage behind the table cannot give the guarantees deltalite needs (for example an S3
 * endpoint that ignores conditional writes), or its scheme is not supported.
 */
public class DeltaLiteUnsupportedStorageException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteUnsupportedStorageException(String message) {
        super(message);
    }

    public DeltaLiteUnsupportedStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
