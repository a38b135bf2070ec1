package io.deltalite.flink.exceptions;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The table's storage cannot be used as configured, and retrying will not help: the endpoint cannot
 * be reached, the credentials are refused, the bucket does not exist. The message names the table,
 * the setting, what the store answered and what to change; it never holds a secret.
 */
@PublicEvolving
public class DeltaLiteStorageException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteStorageException(String message) {
        super(message);
    }

    public DeltaLiteStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
