package io.deltalite.flink.testing;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.WriteMode;
import java.util.List;
import java.util.Map;

/**
 * The writers and the committer of one job ({@value #JOB}) driven checkpoint by checkpoint, as
 * Flink drives them, for tests of the engine below Flink that need several writers of one
 * checkpoint.
 */
public final class WriterCheckpoints {
    /** The app id of the job. */
    public static final String JOB = "job";

    private WriterCheckpoints() {}

    /**
     * Orders {@code id BIGINT NOT NULL, day STRING, amount INT}, keyed by {@code id} and
     * partitioned by {@code day} (outside the key), with deletion vectors where {@code mode} writes
     * them.
     */
    public static TableDefinition ordersByDay(WriteMode mode) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                        new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                        new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                List.of("id"),
                List.of("day"),
                Map.of(
                        "delta.enableDeletionVectors",
                        Boolean.toString(mode == WriteMode.DELETION_VECTORS)));
    }

    /**
     * Writer {@code subtask} of {@code parallelism} of a sink distributed by key, with the keys of
     * {@code keys} in every partition.
     */
    public static MergeWriter sharingWriter(
            DeltaTable table, MergeOptions options, int subtask, int parallelism, KeyGroups keys) {
        return new MergeWriter(
                table, options, JOB, subtask, parallelism, 1, null, WriterShare.keysIn(keys));
    }

    /** The results {@code writer} prepares for {@code checkpointId}, noted as the checkpoint's. */
    public static List<PartitionWriteResult> prepare(MergeWriter writer, long checkpointId) {
        List<PartitionWriteResult> results = writer.prepare();
        writer.prepared(checkpointId);
        return results;
    }

    /** The job's committer, in a job attempt that restored nothing. */
    public static CheckpointCommitter committer(DeltaTable table, MergeOptions options) {
        return new CheckpointCommitter(
                table, new PartitionMerger(table, options, null), options, JOB, 0);
    }

    /** The job's checkpoint {@code id} with {@code results}. */
    public static CheckpointResults checkpoint(long id, List<PartitionWriteResult> results) {
        return new CheckpointResults(JOB, id, results);
    }
}
