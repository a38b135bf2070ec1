package io.deltalite.flink.bench;

import io.deltalite.flink.sink.DeltaLiteSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * End-to-end throughput of the sink on a mini cluster: a generator of {@code keys} new keys in 16
 * partitions, 10% of its records updating an earlier key, written at parallelism 2 with a
 * checkpoint every {@code interval}; and the latency from each checkpoint's trigger to its Delta
 * commit.
 */
final class FlinkThroughput {
    /** Commit times by table and checkpoint id (the mini cluster runs in this JVM). */
    static final Map<String, Map<Long, Long>> COMMITTED = new ConcurrentHashMap<>();

    static final RowType ROW_TYPE =
            RowType.of(
                    new org.apache.flink.table.types.logical.LogicalType[] {
                        new BigIntType(false),
                        new VarCharType(8),
                        new BigIntType(),
                        new VarCharType(64)
                    },
                    new String[] {"id", "part", "amount", "note"});

    record Result(long records, long runtimeMillis, List<Long> commitLatenciesMillis, int commits) {
        double recordsPerSecond() {
            return records * 1000.0 / runtimeMillis;
        }

        long latencyPercentile(double percentile) {
            List<Long> sorted = new ArrayList<>(commitLatenciesMillis);
            sorted.sort(null);
            if (sorted.isEmpty()) {
                return -1;
            }
            int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
            return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
        }
    }

    private FlinkThroughput() {}

    /**
     * @param recordsPerSecond the source's rate, or 0 for as fast as the sink takes them
     */
    static Result run(
            MiniCluster cluster,
            Path table,
            long keys,
            long checkpointMillis,
            double recordsPerSecond,
            io.deltalite.flink.sink.WriteMode writeMode)
            throws Exception {
        long records = keys + keys / 9; // 10% of all records are updates
        String location = table.toString();
        Map<Long, Long> commits = new ConcurrentHashMap<>();
        COMMITTED.put(location, commits);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(checkpointMillis);
        DataGeneratorSource<RowData> source =
                recordsPerSecond > 0
                        ? new DataGeneratorSource<>(
                                index -> record(index, keys),
                                records,
                                RateLimiterStrategy.perSecond(recordsPerSecond),
                                InternalTypeInfo.of(ROW_TYPE))
                        : new DataGeneratorSource<>(
                                index -> record(index, keys),
                                records,
                                InternalTypeInfo.of(ROW_TYPE));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .setParallelism(1)
                .sinkTo(
                        DeltaLiteSink.forTable(location)
                                .rowType(ROW_TYPE)
                                .primaryKey("id")
                                .partitionKey("part")
                                .option(
                                        io.deltalite.flink.sink.DeltaLiteOptions.WRITE_MODE,
                                        writeMode.toString())
                                .commitListener(
                                        (checkpoint, stats, millis) ->
                                                COMMITTED
                                                        .get(location)
                                                        .put(
                                                                checkpoint,
                                                                System.currentTimeMillis()))
                                .build())
                .setParallelism(2);
        JobExecutionResult result = env.execute("deltalite-throughput");
        List<Long> latencies = new ArrayList<>();
        for (AbstractCheckpointStats checkpoint :
                cluster.getArchivedExecutionGraph(result.getJobID())
                        .get()
                        .getCheckpointStatsSnapshot()
                        .getHistory()
                        .getCheckpoints()) {
            Long committedAt = commits.get(checkpoint.getCheckpointId());
            if (committedAt != null) {
                latencies.add(committedAt - checkpoint.getTriggerTimestamp());
            }
        }
        return new Result(
                records, result.getNetRuntime(TimeUnit.MILLISECONDS), latencies, commits.size());
    }

    /**
     * Record {@code index}: the first {@code keys} indexes... are spread so that every tenth record
     * updates a key inserted earlier; the rest insert new keys in order.
     */
    private static RowData record(long index, long keys) {
        long id;
        if (index % 10 == 9 && index > 100) {
            id = (index * 0x9E3779B97F4A7C15L >>> 1) % (index - index / 10);
        } else {
            id = index - index / 10;
        }
        return GenericRowData.of(
                id,
                StringData.fromString(String.format("p%02d", id % 16)),
                index,
                StringData.fromString("note-" + index));
    }
}
