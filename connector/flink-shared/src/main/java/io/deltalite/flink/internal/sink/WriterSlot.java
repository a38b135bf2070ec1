package io.deltalite.flink.internal.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.TaskInfo;

/**
 * Which of the sink's writers one is, and how keys are hashed over the writers when the sink is
 * distributed by key: into {@code keyGroups} groups, as Flink's key groups (the writer operator's
 * maximum parallelism when the sink keys the records itself; a count fixed by the routing
 * otherwise, as a Flink CDC pipeline's hash function routes them).
 */
@Internal
public record WriterSlot(int subtask, int parallelism, int keyGroups) {
    public WriterSlot {
        if (subtask < 0 || subtask >= parallelism || keyGroups < parallelism) {
            throw new IllegalArgumentException(
                    "writer " + subtask + " of " + parallelism + " over " + keyGroups + " groups");
        }
    }

    /** The slot of the writer running as {@code task}, its key groups Flink's. */
    public static WriterSlot of(TaskInfo task) {
        return new WriterSlot(
                task.getIndexOfThisSubtask(),
                task.getNumberOfParallelSubtasks(),
                task.getMaxNumberOfParallelSubtasks());
    }
}
