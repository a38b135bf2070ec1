package io.deltalite.flink.table;

import io.deltalite.flink.sink.DeltaLiteSink;
import java.util.Map;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;

/**
 * The planner's view of a deltalite table. With a primary key it consumes a changelog: inserts,
 * update-afters and deletes, plus update-befores unless the key contains every partition column
 * (only then can a key not move between partitions, so the delete of its old row is needed).
 */
final class DeltaLiteDynamicTableSink implements DynamicTableSink, SupportsPartitioning {
    private final DeltaLiteSink sink;
    private final String tableName;
    private final boolean hasPrimaryKey;
    private final boolean keyContainsPartitionColumns;
    private final Integer parallelism;

    DeltaLiteDynamicTableSink(
            DeltaLiteSink sink,
            String tableName,
            boolean hasPrimaryKey,
            boolean keyContainsPartitionColumns,
            Integer parallelism) {
        this.sink = sink;
        this.tableName = tableName;
        this.hasPrimaryKey = hasPrimaryKey;
        this.keyContainsPartitionColumns = keyContainsPartitionColumns;
        this.parallelism = parallelism;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (!hasPrimaryKey || requestedMode.containsOnly(org.apache.flink.types.RowKind.INSERT)) {
            // An insert-only input needs nothing else; each insert still upserts its key.
            return ChangelogMode.insertOnly();
        }
        return keyContainsPartitionColumns ? ChangelogMode.upsert() : ChangelogMode.all();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return SinkV2Provider.of(sink, parallelism);
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // The planner writes static partition values into the rows it hands to the sink.
    }

    @Override
    public DynamicTableSink copy() {
        return new DeltaLiteDynamicTableSink(
                sink, tableName, hasPrimaryKey, keyContainsPartitionColumns, parallelism);
    }

    @Override
    public String asSummaryString() {
        return "deltalite(" + tableName + ")";
    }
}
