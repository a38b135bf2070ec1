package io.deltalite.flink.exceptions;

/**
 * With {@code key-index.validate}: a writer's key index located other rows than the exact probe
 * found in the table's files. Nothing of the checkpoint was written from the index's answer. It
 * means a bug in deltalite, or a table changed behind the Delta log (a data file rewritten in place
 * under its own name), so it is not retried: the Flink job fails instead of restarting, which would
 * build a fresh index and hide the difference. Set {@code key-index = off} to write on, and report
 * the message.
 */
public class DeltaLiteKeyIndexDisagreementException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteKeyIndexDisagreementException(String message) {
        super(message);
    }
}
