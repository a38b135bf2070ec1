package io.deltalite.flink.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.Rows;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One pipeline writer driven by hand, on a table partitioned by a column outside its key (an update
 * may move a row to another partition): an existing table's partitioning counts even where the
 * pipeline declares none, and a change that replaces a row without naming it is refused.
 */
class DeltaLiteEventWriterTest {
    private static final TableId ORDERS = TableId.tableId("shop", "orders");
    private static final Schema SCHEMA =
            Schema.newBuilder()
                    .physicalColumn("id", DataTypes.BIGINT().notNull())
                    .physicalColumn("day", DataTypes.STRING().notNull())
                    .primaryKey("id")
                    .build();

    @TempDir Path dir;

    @Test
    void anUpdateMovesItsRowOutOfItsPartitionOfATableThePipelineDidNotPartition() throws Exception {
        // The table exists, partitioned by day; the pipeline names no partition keys.
        new DeltaLiteMetadataApplier(settings(Map.of(ORDERS, List.of("day"))))
                .applySchemaChange(new CreateTableEvent(ORDERS, SCHEMA));
        try (DeltaLiteEventWriter writer = writer(settings(Map.of()))) {
            writer.write(new CreateTableEvent(ORDERS, SCHEMA), null);
            writer.write(DataChangeEvent.insertEvent(ORDERS, row(1, "mon")), null);
            commitCheckpoint(writer, 1);
            writer.write(DataChangeEvent.updateEvent(ORDERS, row(1, "mon"), row(1, "tue")), null);
            commitCheckpoint(writer, 2);
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(location())))
                .containsExactly(Rows.sorted(List.<Object[]>of(new Object[] {1L, "tue"})).get(0));
    }

    @Test
    void aReplaceOfATablePartitionedOutsideItsKeyIsRefusedSayingWhatToDo() throws Exception {
        new DeltaLiteMetadataApplier(settings(Map.of(ORDERS, List.of("day"))))
                .applySchemaChange(new CreateTableEvent(ORDERS, SCHEMA));
        try (DeltaLiteEventWriter writer = writer(settings(Map.of()))) {
            writer.write(new CreateTableEvent(ORDERS, SCHEMA), null);
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            DataChangeEvent.replaceEvent(
                                                    ORDERS, row(1, "tue"), Map.of()),
                                            null))
                    .hasMessageContaining("REPLACE of shop.orders")
                    .hasMessageContaining("partitioned by [day]")
                    .hasMessageContaining("send the old row");
        }
    }

    @Test
    void anUpdateThatChangesThePrimaryKeyIsRefusedAndOneThatKeepsItIsWritten() throws Exception {
        new DeltaLiteMetadataApplier(settings(Map.of()))
                .applySchemaChange(new CreateTableEvent(ORDERS, SCHEMA));
        try (DeltaLiteEventWriter writer = writer(settings(Map.of()))) {
            writer.write(new CreateTableEvent(ORDERS, SCHEMA), null);
            writer.write(DataChangeEvent.updateEvent(ORDERS, row(1, "mon"), row(1, "tue")), null);
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            DataChangeEvent.updateEvent(
                                                    ORDERS, row(1, "mon"), row(2, "mon")),
                                            null))
                    .hasMessageContaining("changes the row's primary key [id]")
                    .hasMessageContaining("DELETE and an INSERT");
        }
    }

    @Test
    void aTableThatFailsToMergeFailsTheCheckpointAfterTheOthersMerged() throws Exception {
        TableId returns = TableId.tableId("shop", "returns");
        DeltaLiteMetadataApplier applier = new DeltaLiteMetadataApplier(settings(Map.of()));
        applier.applySchemaChange(new CreateTableEvent(ORDERS, SCHEMA));
        applier.applySchemaChange(new CreateTableEvent(returns, SCHEMA));
        String failing = dir.resolve("shop").resolve("returns").toString();
        FaultInjection.arm(
                FaultInjection.Point.PREPARED,
                (table, occurrence) -> {
                    if (table.equals(failing)) {
                        throw new IllegalStateException("injected: " + table);
                    }
                });
        try (DeltaLiteEventWriter writer = writer(settings(Map.of()))) {
            for (TableId table : List.of(ORDERS, returns)) {
                writer.write(new CreateTableEvent(table, SCHEMA), null);
                writer.write(DataChangeEvent.insertEvent(table, row(1, "mon")), null);
            }
            writer.flush(false);
            assertThatThrownBy(writer::prepareCommit).hasMessage("injected: " + failing);
        } finally {
            FaultInjection.disarmAll();
        }
    }

    /** Prepares and commits one checkpoint of {@code writer}, as Flink and the committer would. */
    private void commitCheckpoint(DeltaLiteEventWriter writer, long checkpointId) throws Exception {
        writer.flush(false);
        List<TableCommittable> committables = List.copyOf(writer.prepareCommit());
        writer.snapshotState(checkpointId);
        DeltaTable table =
                DeltaTable.open(
                        location(),
                        StorageSettings.of(Map.of()),
                        MergeOptions.DEFAULTS,
                        TableDefinition.existingTable(),
                        false);
        for (TableCommittable committable : committables) {
            String appId = committable.result().appId();
            new CheckpointCommitter(
                            table,
                            new PartitionMerger(table, MergeOptions.DEFAULTS, null),
                            MergeOptions.DEFAULTS,
                            appId,
                            0)
                    .commit(
                            new CheckpointResults(
                                    appId, checkpointId, committable.result().results()));
        }
    }

    private String location() {
        return dir.resolve("shop").resolve("orders").toString();
    }

    private PipelineSettings settings(Map<TableId, List<String>> partitionKeys) {
        return new PipelineSettings(
                TableLocations.under(dir.toString()),
                new Configuration(),
                Map.of(),
                Map.of(),
                partitionKeys,
                null,
                4);
    }

    private static RecordData row(long id, String day) {
        return new BinaryRecordDataGenerator((RowType) SCHEMA.toRowDataType())
                .generate(new Object[] {id, BinaryStringData.fromString(day)});
    }

    private static DeltaLiteEventWriter writer(PipelineSettings settings) {
        return new DeltaLiteEventWriter(settings, context(), List.of());
    }

    /** What a writer of subtask 0 of 1 reads of its context. */
    static WriterInitContext context() {
        JobInfoImpl job = new JobInfoImpl(new JobID(), "pipeline");
        TaskInfoImpl task = new TaskInfoImpl("writer", 128, 0, 1, 0);
        return (WriterInitContext)
                Proxy.newProxyInstance(
                        WriterInitContext.class.getClassLoader(),
                        new Class<?>[] {WriterInitContext.class},
                        (proxy, method, args) ->
                                switch (method.getName()) {
                                    case "getJobInfo" -> job;
                                    case "getTaskInfo" -> task;
                                    case "metricGroup" ->
                                            UnregisteredMetricsGroup.createSinkWriterMetricGroup();
                                    case "getRestoredCheckpointId" -> OptionalLong.empty();
                                    default ->
                                            throw new UnsupportedOperationException(
                                                    method.getName());
                                });
    }
}
