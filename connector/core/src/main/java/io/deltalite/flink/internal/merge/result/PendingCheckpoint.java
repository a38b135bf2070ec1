package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.table.AttemptJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A checkpoint one writer subtask prepared whose commit it has not seen yet: its results, the
 * transaction id they are committed under, and the journal entry that notes their files.
 *
 * @param appId the transaction application id
 * @param checkpointId the transaction version
 * @param journalOwner the owner of the journal entry ({@code w<subtask>-<nonce>} of the start of
 *     the writer that prepared it, which after a restart or a rescale may not be the one holding
 *     it; {@code w<subtask>} in state written before the nonce)
 * @param results the partition results
 */
public record PendingCheckpoint(
        String appId, long checkpointId, String journalOwner, List<PartitionWriteResult> results) {
    public PendingCheckpoint {
        Objects.requireNonNull(appId, "appId");
        Objects.requireNonNull(journalOwner, "journalOwner");
        results = List.copyOf(results);
    }

    /** A version at which this checkpoint was not committed yet, or -1 when unknown. */
    public long notCommittedAt() {
        return CheckpointResults.notCommittedAt(results);
    }

    /** Every file its results refer to: data files added and staged keys. */
    public List<String> writtenPaths() {
        List<String> paths = new ArrayList<>();
        results.forEach(result -> paths.addAll(result.writtenPaths()));
        return paths;
    }

    /** Its journal entry. */
    public AttemptJournal.Entry journalEntry() {
        return new AttemptJournal.Entry(
                appId, checkpointId, journalOwner, notCommittedAt(), writtenPaths());
    }
}
