package io.deltalite.flink.testing.s3;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.internal.storage.StorageSettings;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The merge engine driven as the sink drives it — buffer changes, prepare a checkpoint, commit it
 * under a transaction id — on a table reached with explicit storage settings, for example on S3.
 */
public final class S3UpsertHarness implements AutoCloseable {
    /** {@code id BIGINT NOT NULL, day STRING, amount INT}, key {@code id}, partitioned by day. */
    public static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    private final String appId;
    private final DeltaTable table;
    private final ExecutorService files;
    private final MergeWriter writer;
    private final CheckpointCommitter committer;
    private long checkpoint;

    private S3UpsertHarness(DeltaTable table, MergeOptions options, String appId) {
        this.appId = appId;
        this.table = table;
        this.files = Executors.newFixedThreadPool(options.maxParallelFiles());
        this.writer = new MergeWriter(table, options, appId, 0, 1, 2, files);
        this.committer =
                new CheckpointCommitter(table, new PartitionMerger(table, options, files), options);
        this.checkpoint = table.latestSnapshot().committedCheckpoint(appId).orElse(0);
    }

    /** Opens (or creates) the table at {@code location} and commits under {@code appId}. */
    public static S3UpsertHarness open(
            String location,
            StorageSettings storage,
            TableDefinition definition,
            MergeOptions options,
            String appId) {
        return new S3UpsertHarness(
                DeltaTable.open(location, storage, options, definition, true), options, appId);
    }

    public DeltaTable table() {
        return table;
    }

    public void upsert(Object... row) {
        writer.upsert(row);
    }

    public void delete(Object... row) {
        writer.delete(row);
    }

    /** Prepares the buffered changes as the next checkpoint and commits it. */
    public CommitOutcome commit() {
        List<PartitionWriteResult> results = writer.prepare();
        checkpoint++;
        writer.prepared(checkpoint);
        return committer.commit(new CheckpointResults(appId, checkpoint, results));
    }

    /** Prepares the buffered changes as the next checkpoint without committing it. */
    public List<PartitionWriteResult> prepare() {
        List<PartitionWriteResult> results = writer.prepare();
        checkpoint++;
        writer.prepared(checkpoint);
        return results;
    }

    /** The checkpoint id of the last {@link #commit()}. */
    public long lastCheckpoint() {
        return checkpoint;
    }

    @Override
    public void close() {
        writer.close();
        files.shutdownNow();
    }
}
