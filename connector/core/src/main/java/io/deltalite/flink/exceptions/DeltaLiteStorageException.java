package io.deltalite.flink.exceptions;

/**
 * The table's storage refused or failed an operation. When the sink is built or a SQL table opened,
 * it means the storage cannot be used as configured and retrying will not help (the endpoint cannot
 * be reached, the credentials are refused, the bucket does not exist). While a job runs it fails a
 * checkpoint (a full disk, a log write the store refused): nothing of the checkpoint is committed
 * and the job commits it after its restart, once the storage works again. The message names the
 * table, the setting or operation, what the store answered and what to do; it never holds a secret.
 */
public class DeltaLiteStorageException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteStorageException(String message) {
        super(message);
    }

    public DeltaLiteStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
