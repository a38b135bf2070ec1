package io.deltalite.peers;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Apache Iceberg's Sink V2 {@code IcebergSink} in upsert mode on a Hadoop table: format version 2,
 * identifier fields = the key (Iceberg requires the partition column among them), every other
 * setting Iceberg's default.
 */
final class IcebergTarget implements Target {
    /**
     * The schema, its identifier fields being the key: {@code id}, with {@code day} if partitioned.
     */
    static Schema schema(boolean partitionedByDay) {
        return new Schema(
                List.of(
                        Types.NestedField.required(1, "id", Types.LongType.get()),
                        Types.NestedField.required(2, "day", Types.StringType.get()),
                        Types.NestedField.optional(3, "amount", Types.LongType.get()),
                        Types.NestedField.optional(4, "note", Types.StringType.get())),
                partitionedByDay ? Set.of(1, 2) : Set.of(1));
    }

    @Override
    public void create(Path table, boolean partitionedByDay) {
        Schema schema = schema(partitionedByDay);
        PartitionSpec spec =
                partitionedByDay
                        ? PartitionSpec.builderFor(schema).identity("day").build()
                        : PartitionSpec.unpartitioned();
        new HadoopTables(new Configuration())
                .create(
                        schema,
                        spec,
                        SortOrder.unsorted(),
                        Map.of("format-version", "2", "write.upsert.enabled", "true"),
                        table.toString());
    }

    @Override
    public void sink(
            DataStream<RowData> changes, Path table, boolean partitionedByDay, int parallelism) {
        IcebergSink.forRowData(changes)
                .tableLoader(TableLoader.fromHadoopTable(table.toString()))
                .upsert(true)
                .equalityFieldColumns(partitionedByDay ? List.of("day", "id") : List.of("id"))
                .writeParallelism(parallelism)
                .append();
    }

    @Override
    public Map<Long, Long> commitTimes(Path table, long jobStartMillis) {
        Table loaded = load(table);
        Map<Long, Long> committed = new TreeMap<>();
        for (Snapshot snapshot : loaded.snapshots()) {
            String checkpoint = snapshot.summary().get("flink.max-committed-checkpoint-id");
            if (checkpoint != null && snapshot.timestampMillis() >= jobStartMillis) {
                committed.merge(Long.parseLong(checkpoint), snapshot.timestampMillis(), Math::min);
            }
        }
        return committed;
    }

    static Table load(Path table) {
        return new HadoopTables(new Configuration()).load(table.toString());
    }
}
