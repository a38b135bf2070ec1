package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
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
 * @param compacted live files that a compaction removes ({@code dataChange = false}), by partition
 * @param compactedInto new files that hold their rows ({@code dataChange = false}), by partition
 */
public record TableCommit(
        String appId,
        long checkpointId,
        Map<PartitionValues, List<DataFile>> removed,
        Map<PartitionValues, List<DataFile>> added,
        Map<PartitionValues, List<DataFile>> compacted,
        Map<PartitionValues, List<DataFile>> compactedInto) {

    /** A commit without compaction. */
    public TableCommit(
            String appId,
            long checkpointId,
            Map<PartitionValues, List<DataFile>> removed,
            Map<PartitionValues, List<DataFile>> added) {
        this(appId, checkpointId, removed, added, Map.of(), Map.of());
    }

    public TableCommit {
        Objects.requireNonNull(appId, "appId");
        removed = Map.copyOf(removed);
        added = Map.copyOf(added);
        compacted = Map.copyOf(compacted);
        compactedInto = Map.copyOf(compactedInto);
    }

    public boolean isEmpty() {
        return removed.values().stream().allMatch(List::isEmpty)
                && added.values().stream().allMatch(List::isEmpty)
                && compacted.values().stream().allMatch(List::isEmpty)
                && compactedInto.values().stream().allMatch(List::isEmpty);
    }
}
