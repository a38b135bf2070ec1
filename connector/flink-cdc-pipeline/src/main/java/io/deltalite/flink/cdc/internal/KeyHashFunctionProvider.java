package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.sink.SinkTopology;
import java.util.Objects;
import java.util.function.ToIntFunction;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.OperationType;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.function.HashFunction;
import org.apache.flink.cdc.common.function.HashFunctionProvider;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;

/**
 * Routes each change of a pipeline to the writer that owns its key: the writer a deltalite sink
 * distributed by key would send it to — its primary key hashed into {@link #keyGroups} groups, as
 * each table's writer hashes it ({@link io.deltalite.flink.internal.sink.WriterSlot}) and checks
 * for every record. So all changes of a key reach one writer, in order, and every writer's files
 * hold only its own keys. A delete is routed by its old row, everything else by its new one.
 */
final class KeyHashFunctionProvider implements HashFunctionProvider<DataChangeEvent> {
    private static final long serialVersionUID = 1L;

    private final PipelineSettings settings;
    private final int parallelism;

    KeyHashFunctionProvider(PipelineSettings settings, int parallelism) {
        this.settings = settings;
        this.parallelism = parallelism;
    }

    /**
     * The number of key groups keys are hashed into with {@code parallelism} writers: Flink's
     * default maximum parallelism for it (128 up to 85 writers), so that a rescale within it keeps
     * every file's keys with one writer.
     */
    static int keyGroups(int parallelism) {
        return KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
    }

    @Override
    public HashFunction<DataChangeEvent> getHashFunction(TableId table, Schema schema) {
        Objects.requireNonNull(table, "the pipeline names no table for its hash function");
        if (schema.primaryKeys().isEmpty()) {
            // The metadata applier refuses to create such a table.
            throw new IllegalStateException(
                    "The pipeline table " + table + " has no primary key to route its changes by.");
        }
        SinkConfig config = settings.tableConfig(table, schema);
        PipelineRecords records = PipelineRecords.of(schema);
        ToIntFunction<RowData> writerOfKey =
                SinkTopology.writerOfKey(config, keyGroups(parallelism), parallelism);
        // Only the key is converted: the writer converts the whole record again anyway.
        int[] keyColumns =
                schema.primaryKeys().stream()
                        .mapToInt(column -> schema.getColumnNames().indexOf(column))
                        .toArray();
        return change -> writerOfKey.applyAsInt(records.toRowOf(rowOf(change), keyColumns));
    }

    private static org.apache.flink.cdc.common.data.RecordData rowOf(DataChangeEvent change) {
        return change.op() == OperationType.DELETE ? change.before() : change.after();
    }
}
