package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The state of a writer subtask: the results of checkpoints it prepared that the table did not show
 * committed yet, so that after a restore it still sees its own pending work. Paths and counts (and
 * a few inline keys), never row data.
 */
@Internal
public record WriterState(List<PendingCheckpoint> pending) {
    public WriterState {
        pending = List.copyOf(pending);
    }
}
