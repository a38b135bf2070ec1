package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * What one writer subtask prepared for a checkpoint: its partition results, to be committed under
 * {@code appId}. The checkpoint id travels in Flink's committable message around it.
 *
 * @param endOfInput whether the writer's input ended: it prepares nothing after this
 */
@Internal
public record WriteResult(String appId, List<PartitionWriteResult> results, boolean endOfInput) {
    public WriteResult(String appId, List<PartitionWriteResult> results) {
        this(appId, results, false);
    }

    public WriteResult {
        Objects.requireNonNull(appId, "appId");
        results = List.copyOf(results);
    }
}
