package io.deltalite.flink.exceptions;

/**
 * The table is damaged: a data file it references is gone or corrupt, or a file of its Delta log
 * cannot be read. Nothing is committed on top of it; the message names the file or version and what
 * to do (restore it from a backup, or remove the reference).
 */
public class DeltaLiteDamagedTableException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteDamagedTableException(String message) {
        super(message);
    }

    public DeltaLiteDamagedTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
