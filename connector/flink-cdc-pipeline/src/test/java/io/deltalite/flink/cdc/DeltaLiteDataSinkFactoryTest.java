package io.deltalite.flink.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.deltalite.flink.cdc.internal.DeltaLiteDataSink;
import io.deltalite.flink.testing.DeltaHistory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.factories.Factory;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sink: type: deltalite}: found by the pipeline, its options checked before anything runs.
 */
class DeltaLiteDataSinkFactoryTest {
    @Test
    void thePipelineFindsTheSinkByItsType() {
        assertThat(ServiceLoader.load(Factory.class).stream().map(ServiceLoader.Provider::get))
                .anySatisfy(
                        factory -> {
                            assertThat(factory).isInstanceOf(DeltaLiteDataSinkFactory.class);
                            assertThat(factory.identifier()).isEqualTo("deltalite");
                        });
    }

    @Test
    void aSinkTakesTheRootDeltaliteOptionsTablePropertiesAndStorageSettings() {
        assertThat(
                        PipelineSinkITCase.dataSink(
                                Map.of(
                                        "table.root", "/tmp/lake",
                                        "write-mode", "copy-on-write",
                                        "max-buffered-bytes", "64mb",
                                        "partition.key", "shop.orders:day",
                                        "table.properties.delta.appendOnly", "false",
                                        "hadoop.fs.s3a.endpoint", "http://localhost:9000")))
                .isInstanceOf(DeltaLiteDataSink.class);
    }

    @Test
    void aTableThePipelineCreatesGetsTheSinksPropertiesAndPartitionColumns(@TempDir Path root)
            throws Exception {
        Schema orders =
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT().notNull())
                        .physicalColumn("day", DataTypes.STRING())
                        .primaryKey("id")
                        .build();
        TableId deletionVectors = TableId.tableId("shop", "orders");
        TableId copyOnWrite = TableId.tableId("shop", "returns");
        PipelineSinkITCase.dataSink(
                        Map.of(
                                "table.root", root.toString(),
                                "partition.key", "shop.orders:day",
                                "table.properties.delta.logRetentionDuration", "interval 9 days"))
                .getMetadataApplier()
                .applySchemaChange(new CreateTableEvent(deletionVectors, orders));
        PipelineSinkITCase.dataSink(
                        Map.of("table.root", root.toString(), "write-mode", "copy-on-write"))
                .getMetadataApplier()
                .applySchemaChange(new CreateTableEvent(copyOnWrite, orders));

        JsonNode created = metaData(root.resolve("shop").resolve("orders"));
        assertThat(created.get("partitionColumns").toString()).isEqualTo("[\"day\"]");
        assertThat(created.get("configuration").get("delta.logRetentionDuration").asText())
                .isEqualTo("interval 9 days");
        assertThat(created.get("configuration").get("delta.enableDeletionVectors").asText())
                .isEqualTo("true");
        JsonNode rewritten = metaData(root.resolve("shop").resolve("returns"));
        assertThat(rewritten.get("partitionColumns").toString()).isEqualTo("[]");
        assertThat(rewritten.get("configuration").has("delta.enableDeletionVectors")).isFalse();
    }

    private static JsonNode metaData(Path table) {
        return DeltaHistory.actions(table).stream()
                .filter(action -> action.has("metaData"))
                .reduce((first, second) -> second)
                .orElseThrow()
                .get("metaData");
    }

    @Test
    void exactlyOneOfRootAndPatternIsRequired() {
        assertThatThrownBy(() -> PipelineSinkITCase.dataSink(Map.of()))
                .hasMessageContaining("table.root")
                .hasMessageContaining("table.path-pattern")
                .hasMessageContaining("neither is set");
        assertThatThrownBy(
                        () ->
                                PipelineSinkITCase.dataSink(
                                        Map.of(
                                                "table.root", "/tmp/a",
                                                "table.path-pattern", "/tmp/{table}")))
                .hasMessageContaining("both are set");
    }

    @Test
    void optionsThePipelineSetsItselfAreRefusedSayingWhy() {
        assertThatThrownBy(
                        () ->
                                PipelineSinkITCase.dataSink(
                                        Map.of(
                                                "table.root",
                                                "/tmp/a",
                                                "distribution",
                                                "partition")))
                .hasMessageContaining("'distribution'")
                .hasMessageContaining("routes every key to one writer");
    }

    @Test
    void tablesMergedAtOnceMustBePositive() {
        assertThatThrownBy(
                        () ->
                                PipelineSinkITCase.dataSink(
                                        Map.of(
                                                "table.root", "/tmp/a",
                                                "tables.parallel-merges", "0")))
                .hasMessageContaining("tables.parallel-merges must be positive, but is 0");
    }

    @Test
    void anUnknownOptionIsRefusedByName() {
        assertThatThrownBy(
                        () ->
                                PipelineSinkITCase.dataSink(
                                        Map.of(
                                                "table.root",
                                                "/tmp/a",
                                                "write-mdoe",
                                                "copy-on-write")))
                .hasMessageContaining("write-mdoe");
    }

    @Test
    void partitionKeysAreGivenPerTable() {
        assertThat(
                        DeltaLiteDataSinkFactory.partitionKeys(
                                "shop.orders:day; shop.events:region,day"))
                .containsExactly(
                        Map.entry(TableId.tableId("shop", "orders"), List.of("day")),
                        Map.entry(TableId.tableId("shop", "events"), List.of("region", "day")));
        assertThatThrownBy(() -> DeltaLiteDataSinkFactory.partitionKeys("shop.orders"))
                .hasMessageContaining("'shop.orders'")
                .hasMessageContaining("<table>:<column>");
    }
}
