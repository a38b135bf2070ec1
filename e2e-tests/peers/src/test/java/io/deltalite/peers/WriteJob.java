package io.deltalite.peers;

import io.deltalite.peers.Changelog.Phase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * One write job in a JVM of its own, on one system's class path: a local Flink cluster, the
 * changelog source at parallelism 1 (throttled when {@code rate > 0}), the system's sink at {@code
 * parallelism}, a checkpoint every {@code checkpointMillis}. Reports records, the job's runtime,
 * commits, the latency from each checkpoint's trigger to its rows becoming visible, and the JVM's
 * peak RSS.
 */
public final class WriteJob {
    private WriteJob() {}

    public static void main(String[] args) throws Exception {
        JobArguments job = JobArguments.parse(args);
        PeerSystem system = PeerSystem.valueOf(job.get("system"));
        Phase phase = Phase.valueOf(job.get("phase"));
        Path table = job.getPath("table");
        long records = job.getLong("records");
        int parallelism = (int) job.getLong("parallelism");
        double rate = job.getDouble("rate");
        boolean partitioned = phase == Phase.LATE_CORRECTIONS;
        Target target = system.target();
        if (phase != Phase.CDC) {
            target.create(table, partitioned);
        }

        Configuration configuration = new Configuration();
        configuration.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
        // A failure is a result to report, not something to retry into the measurement.
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(configuration)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(parallelism)
                                .build());
        cluster.start();
        try {
            TestStreamEnvironment.setAsContext(cluster, parallelism);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.enableCheckpointing(job.getLong("checkpointMillis"));
            ChangelogGenerator generator =
                    new ChangelogGenerator(
                            phase, job.getLong("bulk"), records, job.getLong("eventsPerDay"));
            DataGeneratorSource<RowData> source =
                    rate > 0
                            ? new DataGeneratorSource<>(
                                    generator,
                                    records,
                                    RateLimiterStrategy.perSecond(rate),
                                    InternalTypeInfo.of(Target.ROW_TYPE))
                            : new DataGeneratorSource<>(
                                    generator, records, InternalTypeInfo.of(Target.ROW_TYPE));
            DataStream<RowData> changes =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "changelog")
                            .setParallelism(1);
            target.sink(changes, table, partitioned, parallelism);
            long started = System.currentTimeMillis();
            JobExecutionResult result = env.execute(system + " " + phase);

            Map<Long, Long> committed = target.commitTimes(table, started);
            List<Long> latencies = new ArrayList<>();
            // In checkpoint order (Flink's history lists the newest first).
            List<AbstractCheckpointStats> checkpoints =
                    new ArrayList<>(
                            cluster.getArchivedExecutionGraph(result.getJobID())
                                    .get()
                                    .getCheckpointStatsSnapshot()
                                    .getHistory()
                                    .getCheckpoints());
            checkpoints.sort(
                    java.util.Comparator.comparingLong(AbstractCheckpointStats::getCheckpointId));
            for (AbstractCheckpointStats checkpoint : checkpoints) {
                Long at = committed.get(checkpoint.getCheckpointId());
                if (at != null) {
                    latencies.add(at - checkpoint.getTriggerTimestamp());
                }
            }
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("records", records);
            report.put("runtimeMillis", result.getNetRuntime(TimeUnit.MILLISECONDS));
            report.put("commits", committed.size());
            report.put(
                    "latencies",
                    latencies.stream().map(String::valueOf).collect(Collectors.joining(",")));
            report.put("peakRssBytes", JobArguments.peakRssBytes());
            JobArguments.report(job.getPath("result"), report);
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }
}
