package io.deltalite.flink.sink;

import io.deltalite.flink.internal.compat.SinkV2;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.sink.SavepointCheck;
import io.deltalite.flink.internal.sink.Serializers;
import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.sink.SinkTopology;
import io.deltalite.flink.internal.sink.WriteResult;
import io.deltalite.flink.internal.sink.WriterState;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

/**
 * A Flink sink that keeps a Delta Lake table equal to the latest row of each primary key of a
 * stream of changes, committing each checkpoint exactly once.
 *
 * <pre>{@code
 * DeltaLiteSink sink = DeltaLiteSink.forTable("s3a://bucket/orders")   // or a local path
 *     .rowType(rowType)                  // the RowType of the input RowData
 *     .primaryKey("id")
 *     .partitionKey("day")               // for a table the sink creates
 *     .build();
 * changes.sinkTo(sink);                  // RowKind: +I/+U upsert, -D/-U delete
 * }</pre>
 *
 * <p>The operator graph:
 *
 * <pre>
 *   input ── keyBy(partition values) ──▶ writer (parallelism p)
 *       buffers the checkpoint's changes; at the checkpoint merges each touched partition:
 *       finds the files holding a changed key, rewrites them without those rows, writes the
 *       new rows
 *   ──▶ aggregator (parallelism 1): one committable per checkpoint
 *   ──▶ committer: one Delta commit per checkpoint, tagged with txn(appId, checkpointId)
 * </pre>
 *
 * <p>Sink V2 hooks used: {@link SupportsWriterState} (each writer remembers its uncommitted
 * results), {@link SupportsPreWriteTopology} (the keyBy), {@link SupportsPreCommitTopology} (the
 * aggregator) and {@link SupportsCommitter}.
 */
@PublicEvolving
public final class DeltaLiteSink
        implements SinkV2<RowData>,
                SupportsWriterState<RowData, WriterState>,
                SupportsCommitter<CheckpointResults>,
                SupportsPreWriteTopology<RowData>,
                SupportsPreCommitTopology<WriteResult, CheckpointResults> {
    private static final long serialVersionUID = 1L;

    private final SinkConfig config;

    /** The stream this sink was added to, to refuse a second one (client side only). */
    private transient Integer inputId;

    DeltaLiteSink(SinkConfig config) {
        this.config = config;
    }

    /**
     * Starts building a sink for the table at {@code location}: a local path, file:// or s3a://.
     */
    public static DeltaLiteSinkBuilder forTable(String location) {
        return new DeltaLiteSinkBuilder(location);
    }

    @Override
    public StatefulSinkWriter<RowData, WriterState> createWriter(WriterInitContext context) {
        return restoreWriter(context, List.of());
    }

    @Override
    public StatefulSinkWriter<RowData, WriterState> restoreWriter(
            WriterInitContext context, Collection<WriterState> recoveredState) {
        return SinkTopology.writer(config, context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<WriterState> getWriterStateSerializer() {
        return new Serializers.WriterStateSerializer();
    }

    @Override
    public Committer<CheckpointResults> createCommitter(CommitterInitContext context) {
        return SinkTopology.committer(config, context);
    }

    @Override
    public SimpleVersionedSerializer<CheckpointResults> getCommittableSerializer() {
        return new Serializers.CommittableSerializer();
    }

    @Override
    public DataStream<RowData> addPreWriteTopology(DataStream<RowData> input) {
        if (inputId != null && inputId != input.getId()) {
            // Both would commit under one transaction app id and take each other's checkpoints
            // for their own.
            throw new IllegalStateException(
                    "This DeltaLiteSink for "
                            + config.location()
                            + " is already the sink of another stream. Build one sink per"
                            + " stream: DeltaLiteSink.forTable(...)...build() for each sinkTo().");
        }
        inputId = input.getId();
        SavepointCheck.checkRestorable(input.getExecutionEnvironment().getConfiguration());
        return SinkTopology.distribute(config, input);
    }

    @Override
    public DataStream<CommittableMessage<CheckpointResults>> addPreCommitTopology(
            DataStream<CommittableMessage<WriteResult>> writeResults) {
        return SinkTopology.aggregate(config, writeResults);
    }

    @Override
    public SimpleVersionedSerializer<WriteResult> getWriteResultSerializer() {
        return new Serializers.WriteResultSerializer();
    }

    /**
     * The partition columns of the table this sink writes — those of the existing table, or the
     * declared ones for a table it will create — when the table could be read while the sink was
     * built; empty when it could not (the writers check it when they start).
     */
    @Internal
    public Optional<List<String>> tablePartitionColumns() {
        return config.tablePartitionColumns();
    }

    @Override
    public String toString() {
        return "DeltaLiteSink{" + config + "}";
    }
}
