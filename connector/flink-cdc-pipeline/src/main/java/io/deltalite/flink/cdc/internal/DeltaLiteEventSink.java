package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.compat.SinkV2;
import io.deltalite.flink.internal.sink.CommitAggregator;
import io.deltalite.flink.internal.sink.WriteResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.TwoPhaseCommittingSink;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.WithPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The sink of a Flink CDC pipeline: the events of many tables in, one Delta commit per table per
 * checkpoint out, exactly once.
 *
 * <pre>
 *   pipeline partitioner (each key to one writer, {@link KeyHashFunctionProvider})
 *   ──▶ writer (parallelism p, {@link DeltaLiteEventWriter}): one deltalite writer per table
 *   ──▶ aggregator (parallelism 1): per checkpoint, one committable per table
 *   ──▶ committer ({@link DeltaLiteEventCommitter}): one Delta commit per table, tagged with the
 *       transaction id (app id, checkpoint id)
 * </pre>
 *
 * <p>Flink CDC 3.5 attaches a committer only to a sink that is a {@link TwoPhaseCommittingSink} and
 * adds the pre-commit stage only through {@link WithPreCommitTopology} — the interfaces Flink 1.20
 * deprecates, which deltalite's own sink does not implement. There is no pre-write stage: the
 * pipeline's partitioner routes the records, and a stage between it and the writers would stop the
 * flush events it broadcasts.
 */
public final class DeltaLiteEventSink
        implements SinkV2<Event>,
                TwoPhaseCommittingSink<Event, TableCommittable>,
                SupportsWriterState<Event, PipelineWriterState>,
                WithPreCommitTopology<Event, TableCommittable> {
    private static final long serialVersionUID = 1L;

    private final PipelineSettings settings;

    public DeltaLiteEventSink(PipelineSettings settings) {
        this.settings = settings;
    }

    @Override
    public StatefulSinkWriter<Event, PipelineWriterState> createWriter(WriterInitContext context) {
        return restoreWriter(context, List.of());
    }

    @Override
    public StatefulSinkWriter<Event, PipelineWriterState> restoreWriter(
            WriterInitContext context, Collection<PipelineWriterState> recoveredState) {
        return new DeltaLiteEventWriter(settings, context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<PipelineWriterState> getWriterStateSerializer() {
        return new PipelineSerializers.WriterStateSerializer();
    }

    @Override
    public Committer<TableCommittable> createCommitter(CommitterInitContext context) {
        return new DeltaLiteEventCommitter(settings, context);
    }

    /** Declared here: Flink CDC looks this method up on the sink's own class. */
    @Override
    public SimpleVersionedSerializer<TableCommittable> getCommittableSerializer() {
        return new PipelineSerializers.CommittableSerializer();
    }

    @Override
    public DataStream<CommittableMessage<TableCommittable>> addPreCommitTopology(
            DataStream<CommittableMessage<TableCommittable>> committables) {
        return committables
                .global()
                .transform(
                        "deltalite-commit-aggregator",
                        CommittableMessageTypeInfo.of(
                                PipelineSerializers.CommittableSerializer::new),
                        new CommitAggregator<>(new PerTable(settings)))
                .setParallelism(1)
                .setMaxParallelism(1)
                .global();
    }

    @Override
    public String toString() {
        return "DeltaLiteEventSink{" + settings + "}";
    }

    /** A checkpoint's committables: one per table, its writers' results together. */
    static final class PerTable
            implements CommitAggregator.Assembly<TableCommittable, TableCommittable> {
        private static final long serialVersionUID = 1L;
        private final PipelineSettings settings;

        PerTable(PipelineSettings settings) {
            this.settings = settings;
        }

        @Override
        public String transactionAppId(String jobId) {
            return settings.transactionAppId(jobId);
        }

        @Override
        public WriteResult writeResult(TableCommittable committable) {
            return committable.result();
        }

        @Override
        public List<TableCommittable> assemble(
                String appId,
                long checkpointId,
                List<TableCommittable> committables,
                boolean endsInput) {
            Map<String, List<TableCommittable>> byTable = new LinkedHashMap<>();
            for (TableCommittable committable : committables) {
                byTable.computeIfAbsent(committable.table().location(), l -> new ArrayList<>())
                        .add(committable);
            }
            List<TableCommittable> assembled = new ArrayList<>();
            for (List<TableCommittable> ofTable : byTable.values()) {
                List<io.deltalite.flink.internal.merge.result.PartitionWriteResult> results =
                        new ArrayList<>();
                ofTable.forEach(committable -> results.addAll(committable.result().results()));
                if (results.isEmpty() && !endsInput) {
                    continue;
                }
                // The last writer's view of the table: the latest of the checkpoint's schemas.
                TableSpec table = ofTable.get(ofTable.size() - 1).table();
                assembled.add(
                        new TableCommittable(
                                table, checkpointId, new WriteResult(appId, results, endsInput)));
            }
            return assembled;
        }

        @Override
        public SimpleVersionedSerializer<TableCommittable> serializer() {
            return new PipelineSerializers.CommittableSerializer();
        }
    }
}
