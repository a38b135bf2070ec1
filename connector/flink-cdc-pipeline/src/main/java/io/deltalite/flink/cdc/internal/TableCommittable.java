package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.sink.WriteResult;

/**
 * What the pipeline's writers prepare for one table in a checkpoint, and what the aggregator makes
 * of all of them: one committable per table per checkpoint, which the committer lands as one Delta
 * commit tagged with the transaction id {@code (app id, checkpoint id)}. Both stages pass this one
 * type (Flink CDC wires the writer, the pre-commit stage and the committer with one serializer).
 *
 * @param checkpointId the checkpoint, once the aggregator assembled it; -1 from a writer (Flink's
 *     message around it carries the checkpoint)
 */
public record TableCommittable(TableSpec table, long checkpointId, WriteResult result) {
    /** The committable of one checkpoint of the table, as the table's committer takes it. */
    CheckpointResults checkpointResults() {
        if (checkpointId < 0) {
            throw new IllegalStateException(
                    "the results of " + table.name() + " were not assembled into a checkpoint");
        }
        return new CheckpointResults(
                result.appId(), checkpointId, result.results(), result.endOfInput());
    }
}
