package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.PartitionWriteResult;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * What one writer subtask prepared for a checkpoint: its partition results, to be committed under
 * {@code appId}. The checkpoint id travels in Flink's committable message around it.
 */
@Internal
public record WriteResult(String appId, List<PartitionWriteResult> results) {
    public WriteResult {
        Objects.requireNonNull(appId, "appId");
        results = List.copyOf(results);
    }
}
