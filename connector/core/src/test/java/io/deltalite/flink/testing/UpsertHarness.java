package io.deltalite.flink.testing;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The merge engine driven the way the sink drives it — buffer changes, prepare a checkpoint, commit
 * it with a transaction id — on a real Delta table, without Flink.
 */
public final class UpsertHarness implements AutoCloseable {
    public static final String APP_ID = "harness";

    private final String appId;
    private final String location;
    private final MergeOptions options;
    private final DeltaTable table;
    private final ExecutorService files;
    private final MergeWriter writer;
    private final CheckpointCommitter committer;
    private long checkpoint;

    private UpsertHarness(
            String location, DeltaTable table, MergeOptions options, String appId, int subtask) {
        this(location, table, options, appId, subtask, -1);
    }

    /**
     * @param restoredCheckpoint the checkpoint the "job" restored, making the committer this app
     *     id's own (it then sweeps orphaned checkpoints), or -1 for a committer of others' work
     */
    private UpsertHarness(
            String location,
            DeltaTable table,
            MergeOptions options,
            String appId,
            int subtask,
            long restoredCheckpoint) {
        this.appId = appId;
        this.location = location;
        this.table = table;
        this.options = options;
        this.files = Executors.newFixedThreadPool(options.maxParallelFiles());
        this.writer = new MergeWriter(table, options, appId, subtask, 4, 2, files);
        PartitionMerger merger = new PartitionMerger(table, options, files);
        this.committer =
                restoredCheckpoint < 0
                        ? new CheckpointCommitter(table, merger, options)
                        : new CheckpointCommitter(
                                table, merger, options, appId, restoredCheckpoint);
        // Reopening a table continues after the checkpoints committed earlier, as after a restart.
        this.checkpoint = table.latestSnapshot().committedCheckpoint(appId).orElse(0);
    }

    /** Opens the table at {@code location}, creating it from {@code definition} if missing. */
    public static UpsertHarness open(
            String location, TableDefinition definition, MergeOptions options) {
        return open(location, definition, options, APP_ID);
    }

    /** A harness committing under its own transaction application id. */
    public static UpsertHarness open(
            String location, TableDefinition definition, MergeOptions options, String appId) {
        return open(location, definition, options, appId, 0);
    }

    /** A harness whose writer is subtask {@code subtask} of the sink's writers. */
    public static UpsertHarness open(
            String location,
            TableDefinition definition,
            MergeOptions options,
            String appId,
            int subtask) {
        return new UpsertHarness(
                location,
                DeltaTable.open(location, Map.of(), options, definition, true),
                options,
                appId,
                subtask);
    }

    /**
     * The same writer subtask and committer after a failover of their job that restored checkpoint
     * {@code restoredCheckpoint}: the next attempt, same app id, nothing of {@code failed}'s
     * memory.
     */
    public static UpsertHarness restarted(
            UpsertHarness failed, int subtask, long restoredCheckpoint) {
        UpsertHarness restarted =
                new UpsertHarness(
                        failed.location,
                        failed.table,
                        failed.options,
                        failed.appId,
                        subtask,
                        restoredCheckpoint);
        restarted.checkpoint = failed.checkpoint;
        return restarted;
    }

    /**
     * The job restarted from checkpoint {@code restoredCheckpoint} in a new process: it opens the
     * table anew (as it is now) and its committer is the app id's own.
     */
    public static UpsertHarness reopened(
            String location,
            TableDefinition definition,
            MergeOptions options,
            long restoredCheckpoint) {
        return new UpsertHarness(
                location,
                DeltaTable.open(location, Map.of(), options, definition, true),
                options,
                APP_ID,
                0,
                restoredCheckpoint);
    }

    /** Another writer subtask of the same sink: same table, same app id. */
    public static UpsertHarness attach(UpsertHarness other, int subtask) {
        UpsertHarness attached =
                new UpsertHarness(other.location, other.table, other.options, other.appId, subtask);
        attached.checkpoint = other.checkpoint;
        return attached;
    }

    public DeltaTable table() {
        return table;
    }

    public MergeWriter writer() {
        return writer;
    }

    public void upsert(Object... row) {
        writer.upsert(row);
    }

    public void delete(Object... row) {
        writer.delete(row);
    }

    /** Prepares the buffered changes as the next checkpoint and commits it. */
    public CommitOutcome commit() {
        List<PartitionWriteResult> results = prepare();
        return commitPrepared(checkpoint, results);
    }

    /** Prepares the next checkpoint without committing it; returns its results. */
    public List<PartitionWriteResult> prepare() {
        List<PartitionWriteResult> results = writer.prepare();
        checkpoint++;
        writer.prepared(checkpoint);
        return results;
    }

    /** Prepares the buffered changes as checkpoint {@code checkpointId}. */
    public List<PartitionWriteResult> prepareAs(long checkpointId) {
        List<PartitionWriteResult> results = writer.prepare();
        checkpoint = checkpointId;
        writer.prepared(checkpointId);
        return results;
    }

    /** Prepares the buffered changes as checkpoint {@code checkpointId} and commits them. */
    public CommitOutcome commitAs(long checkpointId) {
        return commitPrepared(checkpointId, prepareAs(checkpointId));
    }

    public long lastCheckpoint() {
        return checkpoint;
    }

    public CommitOutcome commitPrepared(long checkpointId, List<PartitionWriteResult> results) {
        return committer.commit(new CheckpointResults(appId, checkpointId, results));
    }

    /** The committer of {@code harness}, for checkpoints a test builds itself. */
    public static CheckpointCommitter committerOf(UpsertHarness harness) {
        return harness.committer;
    }

    public List<Object[]> read() {
        return KernelTableReader.readAll(location);
    }

    @Override
    public void close() {
        writer.close();
        files.shutdownNow();
    }
}
