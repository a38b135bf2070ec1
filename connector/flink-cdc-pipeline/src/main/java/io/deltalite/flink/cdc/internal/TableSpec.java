package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.SinkConfig;
import java.util.List;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * A table of the pipeline as its writers wrote it in a checkpoint: the committer opens the table
 * from it ({@link #config}), since it never sees the pipeline's events.
 *
 * @param name the table's id in the pipeline, for messages
 * @param rowType the serializable string of the writers' input row type
 */
public record TableSpec(
        String name,
        String location,
        String rowType,
        List<String> primaryKey,
        List<String> partitionKey) {
    public TableSpec {
        primaryKey = List.copyOf(primaryKey);
        partitionKey = List.copyOf(partitionKey);
    }

    /** The table {@code name} as {@code config} writes it. */
    static TableSpec of(String name, SinkConfig config) {
        return new TableSpec(
                name,
                config.location(),
                config.rowType().asSerializableString(),
                config.definition().primaryKey(),
                config.definition().partitionColumns());
    }

    /** The configuration of this table's writers and committer. */
    SinkConfig config(PipelineSettings settings) {
        RowType type = (RowType) LogicalTypeParser.parse(rowType, TableSpec.class.getClassLoader());
        return settings.tableConfig(location, type, primaryKey, partitionKey);
    }
}
