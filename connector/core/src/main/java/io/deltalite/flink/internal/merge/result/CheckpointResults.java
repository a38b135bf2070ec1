package io.deltalite.flink.internal.merge.result;

import java.util.List;
import java.util.Objects;

/**
 * The partition results of one checkpoint, from all writers, to be committed as one Delta version
 * with the transaction id {@code (appId, checkpointId)}. The app id travels with the results, so
 * that a replay after a restart — even into a new job — is recognized by the table's transaction
 * record.
 *
 * @param endsInput whether every writer's input ended with this checkpoint: none of the lineage's
 *     writers merges again, so once it is committed, everything the lineage noted can be resolved
 */
public record CheckpointResults(
        String appId, long checkpointId, List<PartitionWriteResult> results, boolean endsInput) {
    /**
     * The checkpoint id Flink gives the results of the end of the input when checkpointing is off
     * (a batch run); with checkpoints, the last checkpoint carries them and {@link #endsInput()}.
     */
    public static final long END_OF_INPUT = Long.MAX_VALUE;

    public CheckpointResults(String appId, long checkpointId, List<PartitionWriteResult> results) {
        this(appId, checkpointId, results, checkpointId == END_OF_INPUT);
    }

    public CheckpointResults {
        Objects.requireNonNull(appId, "appId");
        results = List.copyOf(results);
    }

    /** A version at which this checkpoint was not committed yet, or -1 when unknown. */
    public long notCommittedAt() {
        return notCommittedAt(results);
    }

    /**
     * The newest version any of {@code results} planned against: the checkpoint was prepared after
     * it, so it was not committed at it. -1 when there are none or none is known (state of an older
     * deltalite).
     */
    public static long notCommittedAt(List<PartitionWriteResult> results) {
        long newest = -1;
        for (PartitionWriteResult result : results) {
            newest = Math.max(newest, result.baseVersion());
        }
        return newest;
    }
}
