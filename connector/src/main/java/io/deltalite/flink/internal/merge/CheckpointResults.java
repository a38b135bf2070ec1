package io.deltalite.flink.internal.merge;

import java.util.List;
import java.util.Objects;

/**
 * The partition results of one checkpoint, to be committed with the Delta transaction id {@code
 * (appId, checkpointId)}. The application id travels with the results, so a replay after a restart
 * — even into a new job — is recognized by the table's transaction record.
 */
public record CheckpointResults(
        String appId, long checkpointId, List<PartitionWriteResult> results) {
    public CheckpointResults {
        Objects.requireNonNull(appId, "appId");
        results = List.copyOf(results);
    }
}
