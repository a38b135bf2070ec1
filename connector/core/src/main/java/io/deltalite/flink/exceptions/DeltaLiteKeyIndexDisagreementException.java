package io.deltalite.flink.exceptions;

/**
 * With {@code key-index.validate}: a writer's key index located other rows than the exact probe
 * found in the table's files. Nothing of the checkpoint is committed from either answer; the job
 * restarts from its last checkpoint (which commits what it completed) and its writers build their
 * indexes afresh. It means a table changed behind the Delta log (a data file rewritten in place
 * under its own name) or a bug in deltalite; report the message. {@code key-index = off} writes
 * with the probe alone.
 */
public class DeltaLiteKeyIndexDisagreementException extends DeltaLiteException {
    private static final long serialVersionUID = 1L;

    public DeltaLiteKeyIndexDisagreementException(String message) {
        super(message);
    }
}
