package io.deltalite.flink.bench;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.DeltaLiteSink;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
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

/**
 * A steady stream for a long time at a fixed rate — half inserts of new keys, half updates of
 * uniformly random earlier keys, 4 partitions, a checkpoint every 2 s, sink parallelism 2 — and
 * what each fifth of the run cost: commit latency, bytes written, files probed, live files per
 * partition. Then a full scan of the final table against the same rows freshly written.
 */
final class SustainedWrites {
    /** What the listener saw, by table and checkpoint id. */
    private static final Map<String, Map<Long, Commit>> COMMITS = new ConcurrentHashMap<>();

    record Commit(long committedAtMillis, UpsertStats stats) {}

    /** One fifth of a run. */
    record Fifth(
            int commits,
            long latencyP50,
            long latencyP99,
            long bytesPerCheckpoint,
            long filesProbedPerCheckpoint,
            long liveFilesPerPartitionMedian,
            long liveFilesPerPartitionMax) {}

    record Result(
            long offeredRecords,
            long runtimeMillis,
            long targetMillis,
            List<Fifth> fifths,
            long rows,
            long scanMillis,
            long freshScanMillis,
            int finalFiles,
            int freshFiles) {
        boolean keptUp() {
            return runtimeMillis <= targetMillis * 1.05;
        }
    }

    private SustainedWrites() {}

    static Result run(
            MiniCluster cluster,
            Path dir,
            WriteMode mode,
            boolean compaction,
            int recordsPerSecond,
            int seconds)
            throws Exception {
        String location = dir.resolve("table").toString();
        Map<Long, Commit> commits = new ConcurrentHashMap<>();
        COMMITS.put(location, commits);
        long records = (long) recordsPerSecond * seconds;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(2_000);
        env.fromSource(
                        new DataGeneratorSource<>(
                                SustainedWrites::record,
                                records,
                                RateLimiterStrategy.perSecond(recordsPerSecond),
                                InternalTypeInfo.of(FlinkThroughput.ROW_TYPE)),
                        WatermarkStrategy.noWatermarks(),
                        "steady changes")
                .setParallelism(1)
                .sinkTo(
                        DeltaLiteSink.forTable(location)
                                .rowType(FlinkThroughput.ROW_TYPE)
                                .primaryKey("id")
                                .partitionKey("part")
                                .option(DeltaLiteOptions.WRITE_MODE, mode.toString())
                                .option(DeltaLiteOptions.COMPACTION_ENABLED, compaction)
                                .commitListener(
                                        (checkpoint, stats, millis) ->
                                                COMMITS.get(location)
                                                        .put(
                                                                checkpoint,
                                                                new Commit(
                                                                        System.currentTimeMillis(),
                                                                        stats)))
                                .build())
                .setParallelism(2);
        JobExecutionResult job = env.execute("deltalite-sustained");
        Map<Long, Long> triggered = new ConcurrentHashMap<>();
        long start = Long.MAX_VALUE;
        for (AbstractCheckpointStats checkpoint :
                cluster.getArchivedExecutionGraph(job.getJobID())
                        .get()
                        .getCheckpointStatsSnapshot()
                        .getHistory()
                        .getCheckpoints()) {
            triggered.put(checkpoint.getCheckpointId(), checkpoint.getTriggerTimestamp());
            start = Math.min(start, checkpoint.getTriggerTimestamp());
        }
        List<Fifth> fifths = fifths(commits, triggered, start, seconds * 1000L);

        List<Object[]> rows = new ArrayList<>();
        long scan = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long begin = System.nanoTime();
            List<Object[]> read = KernelTableReader.readAll(location);
            scan = Math.min(scan, (System.nanoTime() - begin) / 1_000_000);
            rows = read;
        }
        String fresh = dir.resolve("fresh").toString();
        FreshTable.write(fresh, rows);
        long freshScan = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long begin = System.nanoTime();
            KernelTableReader.readAll(fresh);
            freshScan = Math.min(freshScan, (System.nanoTime() - begin) / 1_000_000);
        }
        return new Result(
                records,
                job.getNetRuntime(TimeUnit.MILLISECONDS),
                seconds * 1000L,
                fifths,
                rows.size(),
                scan,
                freshScan,
                KernelTableReader.readByFile(location).size(),
                KernelTableReader.readByFile(fresh).size());
    }

    private static List<Fifth> fifths(
            Map<Long, Commit> commits, Map<Long, Long> triggered, long start, long durationMillis) {
        List<List<Long>> latencies = new ArrayList<>();
        List<List<UpsertStats>> stats = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            latencies.add(new ArrayList<>());
            stats.add(new ArrayList<>());
        }
        commits.forEach(
                (checkpoint, commit) -> {
                    Long trigger = triggered.get(checkpoint);
                    if (trigger == null) {
                        return;
                    }
                    int fifth =
                            (int) Math.min(4, Math.max(0, (trigger - start) * 5 / durationMillis));
                    latencies.get(fifth).add(commit.committedAtMillis() - trigger);
                    stats.get(fifth).add(commit.stats());
                });
        List<Fifth> fifths = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            List<Long> perPartition = new ArrayList<>();
            long bytes = 0;
            long probed = 0;
            for (UpsertStats s : stats.get(i)) {
                bytes += s.bytesWritten();
                probed += s.filesProbed();
                if (s.partitionsTouched() > 0) {
                    perPartition.add(s.liveFiles() / s.partitionsTouched());
                }
            }
            int n = Math.max(1, stats.get(i).size());
            fifths.add(
                    new Fifth(
                            stats.get(i).size(),
                            percentile(latencies.get(i), 50),
                            percentile(latencies.get(i), 99),
                            bytes / n,
                            probed / n,
                            percentile(perPartition, 50),
                            perPartition.stream().mapToLong(Long::longValue).max().orElse(0)));
        }
        return fifths;
    }

    static long percentile(List<Long> values, double percentile) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        if (sorted.isEmpty()) {
            return -1;
        }
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /**
     * Record {@code index}: even indexes insert the next new key, odd ones update a uniformly
     * random key inserted before.
     */
    private static RowData record(long index) {
        long inserted = index / 2;
        long id =
                index % 2 == 0 || inserted == 0
                        ? inserted
                        : Math.floorMod(index * 0x9E3779B97F4A7C15L, inserted);
        return GenericRowData.of(
                id,
                StringData.fromString("p" + id % 4),
                index,
                StringData.fromString("note-" + index));
    }
}
