package io.deltalite.flink.internal.merge;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The content of one Delta commit: files removed and added per partition, tagged with a transaction
 * id so that a replay of the same checkpoint is recognized.
 *
 * @param appId the Delta transaction application id
 * @param checkpointId the transaction version
 * @param removed live files to remove, by partition
 * @param added new files to add, by partition
 */
public record TableCommit(
        String appId,
        long checkpointId,
        Map<PartitionValues, List<DataFile>> removed,
        Map<PartitionValues, List<DataFile>> added) {

    public TableCommit {
        Objects.requireNonNull(appId, "appId");
        removed = Map.copyOf(removed);
        added = Map.copyOf(added);
    }

    public boolean isEmpty() {
        return removed.values().stream().allMatch(List::isEmpty)
                && added.values().stream().allMatch(List::isEmpty);
    }
}
