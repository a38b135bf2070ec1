package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.journal.LineageHeartbeat;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.schema.InputProjection;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.internal.merge.writer.WriterThreads;
import io.deltalite.flink.internal.warmup.MergeWarmUp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToLongFunction;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer subtask: converts each record into a change of the engine's {@link MergeWriter}, which
 * buffers it (merging partitions early if the buffer runs over its budget), and at each checkpoint
 * merges what is buffered and hands the partition results on for the commit.
 *
 * <p>Distributed by partition, all records of a partition reach the same subtask (the sink keys
 * them by partition before the writer), so no two subtasks ever rewrite the same file. Distributed
 * by key, all records of a key do ({@link KeyRouting} checks it), and the writers share partitions
 * ({@link WriterShare}).
 */
@Internal
public final class DeltaLiteWriter
        implements StatefulSinkWriter<RowData, WriterState>,
                CommittingSinkWriter<RowData, WriteResult> {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaLiteWriter.class);

    private SinkConfig config;
    private RowDataConverter converter;
    private final ExecutorService fileExecutor;
    private MergeWriter merge;
    private KeyRouting routing;
    private final WriterSlot slot;

    /** Proves the job alive to a maintenance pass until this writer's input ends. */
    private final LineageHeartbeat heartbeat;

    private boolean endOfInput;

    /** The last checkpoint this writer prepared, or the one it restored. */
    private long lastCheckpointId;

    /** The checkpoint id of the end-of-input results, once prepared. */
    private long endOfInputCheckpointId;

    /** Whether prepareCommit ran for a checkpoint whose snapshotState has not come yet. */
    private boolean preparedSinceSnapshot;

    DeltaLiteWriter(
            SinkConfig config, WriterInitContext context, Collection<WriterState> restored) {
        this(
                config,
                context,
                restored,
                WriterSlot.of(context.getTaskInfo()),
                context.metricGroup());
    }

    /**
     * A writer of one table among several (a Flink CDC pipeline's): its place among the writers and
     * its metrics given apart from {@code context}, which all the tables' writers share.
     */
    public DeltaLiteWriter(
            SinkConfig config,
            WriterInitContext context,
            Collection<WriterState> restored,
            WriterSlot slot,
            MetricGroup metrics) {
        this.config = config;
        this.slot = slot;
        DeltaTable table = openTable(config);
        this.converter = converter(config, table);
        int subtask = slot.subtask();
        int parallelism = slot.parallelism();
        this.routing = KeyRouting.of(config, slot);
        // Flink never closes a writer whose constructor threw: from here on, a failed start gives
        // back what it took (the engine's share of the JVM's buffer budget, the file threads).
        ExecutorService files =
                Executors.newFixedThreadPool(
                        config.mergeOptions().maxParallelFiles(),
                        WriterThreads.daemon(
                                WriterThreads.prefix("files", table.location(), subtask)));
        MergeWriter engine = null;
        try {
            engine =
                    new MergeWriter(
                            table,
                            config.mergeOptions(),
                            config.transactionAppId(context.getJobInfo().getJobId().toHexString()),
                            subtask,
                            parallelism,
                            config.maxParallelPartitions(),
                            files,
                            KeyRouting.share(config, slot));
            List<PendingCheckpoint> pending = new ArrayList<>();
            restored.forEach(state -> pending.addAll(state.pending()));
            engine.restorePending(pending);
            FaultInjection.at(FaultInjection.Point.WRITER_START, config.location());
            // What an earlier start of this subtask (a failover, a restart) wrote and no
            // checkpoint took.
            engine.cleanUpEarlierStarts();
            this.heartbeat =
                    new LineageHeartbeat(
                            table.journal(),
                            table.location(),
                            engine.appId(),
                            AttemptJournal.writer(subtask),
                            config.heartbeatInterval());
            LOG.info(
                    "deltalite writer {} opened {} with {} restored pending checkpoint(s).",
                    subtask,
                    table.location(),
                    pending.size());
        } catch (RuntimeException | Error e) {
            if (engine != null) {
                engine.close();
            }
            files.shutdownNow();
            throw e;
        }
        this.fileExecutor = files;
        this.merge = engine;
        this.lastCheckpointId = context.getRestoredCheckpointId().orElse(0);
        metrics.gauge("deltaliteBufferedBytes", () -> merge.bufferedBytes());
        metrics.gauge("deltalitePendingCheckpoints", () -> merge.pending().size());
        registerKeyIndexGauges(metrics);
        if (config.warmUp()) {
            MergeWarmUp.startOnce(table, config.mergeOptions());
        }
        // Last: a constructor that throws is never closed, and would leave it beating.
        heartbeat.start();
    }

    @Override
    public void write(RowData row, Context context) throws IOException {
        FaultInjection.at(FaultInjection.Point.WRITE, config.location());
        if (routing != null) {
            routing.check(row);
        }
        switch (row.getRowKind()) {
            case INSERT:
            case UPDATE_AFTER:
                merge.upsert(converter.toTableRow(row));
                break;
            case DELETE:
            case UPDATE_BEFORE:
                merge.delete(converter.toDeletedRow(row));
                break;
            default:
                throw new IllegalStateException("unknown row kind " + row.getRowKind());
        }
    }

    private static DeltaTable openTable(SinkConfig config) {
        return DeltaTable.open(
                config.location(),
                config.storage(),
                config.mergeOptions(),
                config.definition(),
                true);
    }

    private static RowDataConverter converter(SinkConfig config, DeltaTable table) {
        return new RowDataConverter(
                config.rowType(),
                InputProjection.plan(
                        config.definition().columns(),
                        table.schema(),
                        table.columnDefaults(),
                        table.location()));
    }

    /**
     * Tells a writer started after the job's start (a Flink CDC pipeline opens a table's writer at
     * its first event) the last checkpoint the job took before it, which its end-of-input results
     * follow.
     */
    public void startsAfterCheckpoint(long checkpointId) {
        lastCheckpointId = Math.max(lastCheckpointId, checkpointId);
    }

    /** The partition columns of the table as this writer opened it (the table's own). */
    public List<String> tablePartitionColumns() {
        return merge.tableSchema().partitionColumns();
    }

    /**
     * Merges the changes buffered so far; their results go out with the checkpoint in progress
     * ({@link MergeWriter#mergeBuffered()}).
     */
    public void mergeBuffered() {
        merge.mergeBuffered();
    }

    /**
     * Continues with the input and table of {@code changed}: the same table, whose schema was
     * changed (by a Flink CDC pipeline's metadata applier) after this writer merged what it
     * buffered ({@link #mergeBuffered()}). The table is opened again as {@code changed} defines it
     * — the changed schema, committed already — and the writer's merges of the checkpoint in
     * progress and its pending checkpoints carry over ({@link MergeWriter#continuedOn}).
     */
    public void continueWith(SinkConfig changed) {
        if (!changed.location().equals(config.location())) {
            throw new IllegalArgumentException(
                    "the writer of " + config.location() + " cannot continue on another table");
        }
        DeltaTable table = openTable(changed);
        RowDataConverter changedConverter = converter(changed, table);
        KeyRouting changedRouting = KeyRouting.of(changed, slot);
        merge = merge.continuedOn(table);
        converter = changedConverter;
        routing = changedRouting;
        config = changed;
    }

    @Override
    public void flush(boolean endOfInput) {
        // Changes are merged in prepareCommit, which Flink calls right after this.
        this.endOfInput |= endOfInput;
        if (endOfInput) {
            // Its last results go to the committer, which beats until the lineage ends.
            heartbeat.stop();
        }
    }

    @Override
    public Collection<WriteResult> prepareCommit() {
        MergeWarmUp.stopSoon();
        if (endOfInput) {
            // Flink 2 emits the end-of-input results as the checkpoint after the last one it
            // prepared (SinkWriterOperator.endInput: lastKnownCheckpointId + 1). That is ours only
            // if every checkpoint it prepared reached snapshotState.
            if (preparedSinceSnapshot) {
                throw new IllegalStateException(
                        "The writer of "
                                + config.location()
                                + " reached the end of its input right after a checkpoint it"
                                + " prepared was abandoned, so it cannot tell the id of its last"
                                + " results; it restarts from the last completed checkpoint.");
            }
            endOfInputCheckpointId = lastCheckpointId + 1;
        } else {
            preparedSinceSnapshot = true;
        }
        List<PartitionWriteResult> results = merge.prepare();
        FaultInjection.at(FaultInjection.Point.PREPARED, config.location());
        if (results.isEmpty() && !endOfInput) {
            return List.of();
        }
        // At the end of the input even an empty result goes out: it tells the committer that this
        // job's lineage is complete, so the files it no longer needs can be cleaned up.
        return List.of(new WriteResult(merge.appId(), results, endOfInput));
    }

    @Override
    public List<WriterState> snapshotState(long checkpointId) {
        // After the end of the input, the last results went out with the end-of-input committable.
        merge.prepared(endOfInputCheckpointId > 0 ? endOfInputCheckpointId : checkpointId);
        lastCheckpointId = Math.max(lastCheckpointId, checkpointId);
        preparedSinceSnapshot = false;
        return List.of(new WriterState(merge.pending()));
    }

    @Override
    public void close() {
        MergeWarmUp.stopSoon();
        heartbeat.stop();
        try {
            if (!endOfInput) {
                // Closed before the end of the input: the job failed, was cancelled or is being
                // restarted. Files no checkpoint took can never be committed.
                merge.discardUncommittable();
            }
        } finally {
            merge.close();
            fileExecutor.shutdownNow();
        }
    }

    SinkConfig config() {
        return config;
    }

    /** The key index's gauges (zero until the writer's first merge makes the index). */
    private void registerKeyIndexGauges(MetricGroup group) {
        group.gauge("deltaliteKeyIndexKeys", keyIndexGauge(KeyIndex.Stats::keys));
        group.gauge("deltaliteKeyIndexBytes", keyIndexGauge(KeyIndex.Stats::memoryBytes));
        group.gauge("deltaliteKeyIndexPartitions", keyIndexGauge(KeyIndex.Stats::partitions));
        group.gauge("deltaliteKeyIndexRowsRead", keyIndexGauge(KeyIndex.Stats::rowsRead));
        group.gauge("deltaliteKeyIndexReadMillis", keyIndexGauge(KeyIndex.Stats::readMillis));
        group.gauge("deltaliteKeyIndexHits", keyIndexGauge(KeyIndex.Stats::hits));
        group.gauge("deltaliteKeyIndexFallbacks", keyIndexGauge(KeyIndex.Stats::fallbacks));
        group.gauge("deltaliteKeyIndexBuilds", keyIndexGauge(KeyIndex.Stats::builds));
        group.gauge("deltaliteKeyIndexBuildMillis", keyIndexGauge(KeyIndex.Stats::buildMillis));
        group.gauge(
                "deltaliteKeyIndexBuildRowsPerSecond",
                keyIndexGauge(KeyIndex.Stats::buildRowsPerSecond));
        group.gauge("deltaliteKeyIndexGrownAhead", keyIndexGauge(KeyIndex.Stats::grownAhead));
    }

    private Gauge<Long> keyIndexGauge(ToLongFunction<KeyIndex.Stats> value) {
        return () -> {
            KeyIndex index = merge.keyIndex();
            return index == null ? 0L : value.applyAsLong(index.stats());
        };
    }
}
