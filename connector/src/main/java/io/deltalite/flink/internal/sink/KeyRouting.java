package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.KeyGroups;
import io.deltalite.flink.internal.merge.WriterShare;
import io.deltalite.flink.sink.Distribution;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;

/**
 * Checks, for a sink distributed by key, that each record reached the writer its primary key is
 * routed to. Writers that share partitions are correct only because no two of them ever see the
 * same key: a record that arrives elsewhere (an input that was not keyed by the sink, a partitioner
 * changed in between) would leave two rows for one key, so it fails the job instead.
 */
final class KeyRouting {
    private final ColumnValuesKeySelector keys;
    private final int maxParallelism;
    private final int parallelism;
    private final int subtask;
    private final String location;

    private KeyRouting(SinkConfig config, TaskInfo task) {
        this.keys = SinkTopology.keySelector(config);
        this.maxParallelism = task.getMaxNumberOfParallelSubtasks();
        this.parallelism = task.getNumberOfParallelSubtasks();
        this.subtask = task.getIndexOfThisSubtask();
        this.location = config.location();
    }

    /** The check for a writer of {@code config}, or null when records are not keyed by key. */
    static KeyRouting of(SinkConfig config, TaskInfo task) {
        if (config.distribution() != Distribution.KEY
                || config.definition().primaryKey().isEmpty()) {
            return null;
        }
        return new KeyRouting(config, task);
    }

    /**
     * The part of each partition's changes the writer of {@code task} handles: whole partitions, or
     * the key groups Flink routes to it when the sink is distributed by key.
     */
    static WriterShare share(SinkConfig config, TaskInfo task) {
        if (config.distribution() != Distribution.KEY) {
            return WriterShare.WHOLE_PARTITIONS;
        }
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        return WriterShare.keysIn(
                new KeyGroups(
                        range.getStartKeyGroup(),
                        range.getEndKeyGroup(),
                        task.getMaxNumberOfParallelSubtasks()));
    }

    void check(RowData row) {
        String key = keys.getKey(row);
        int owner =
                KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        key, maxParallelism, parallelism);
        if (owner != subtask) {
            throw new IllegalStateException(
                    "A record of key "
                            + key.replace('\u0001', ',')
                            + " reached writer "
                            + subtask
                            + " of the sink of "
                            + location
                            + ", but distribution 'key' routes it to writer "
                            + owner
                            + " (of "
                            + parallelism
                            + "): the sink's input was not keyed by the sink. Nothing of this"
                            + " checkpoint is committed. Write to the sink with sinkTo(...) so that"
                            + " it keys the records itself, or use distribution 'partition'.");
        }
    }
}
